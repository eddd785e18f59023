import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { webToken } from './web-token.js';

let home: string | undefined;
afterEach(async () => {
  if (home) await rm(home, { recursive: true, force: true });
  home = undefined;
});

describe('webToken', () => {
  it('makes a secret readable by its owner only, and keeps it across starts', async () => {
    home = await mkdtemp(join(tmpdir(), 'orange-web-token-'));
    const first = await webToken(home);
    expect(first).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await stat(join(home, 'web/token'))).mode & 0o777).toBe(0o600);
    expect(await webToken(home)).toBe(first);
  });

  it('gives servers starting together one secret', async () => {
    home = await mkdtemp(join(tmpdir(), 'orange-web-token-'));
    const tokens = await Promise.all(Array.from({ length: 8 }, () => webToken(home!)));
    expect(new Set(tokens).size).toBe(1);
  });

  it('renews it on demand, and replaces a file that holds no token', async () => {
    home = await mkdtemp(join(tmpdir(), 'orange-web-token-'));
    const first = await webToken(home);
    const renewed = await webToken(home, true);
    expect(renewed).not.toBe(first);
    expect((await readFile(join(home, 'web/token'), 'utf8')).trim()).toBe(renewed);
    await writeFile(join(home, 'web/token'), 'half');
    const replaced = await webToken(home);
    expect(replaced).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
