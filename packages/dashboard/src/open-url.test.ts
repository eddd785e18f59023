import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openUrl, urlOpener } from './open-url.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A stand-in browser opener: a script that records its arguments and exits with `code`. */
async function opener(code: number): Promise<{ path: string; calls: () => Promise<string> }> {
  dir = await mkdtemp(join(tmpdir(), 'orange-open-url-'));
  const path = join(dir, 'opener');
  const log = join(dir, 'calls');
  await writeFile(path, `#!/bin/sh\nprintf '%s\\n' "$@" >> '${log}'\necho noise\nexit ${code}\n`);
  await chmod(path, 0o755);
  return { path, calls: () => readFile(log, 'utf8').catch(() => '') };
}

describe('urlOpener', () => {
  it('uses $BROWSER when set, else the platform opener', () => {
    expect(urlOpener('linux', { BROWSER: 'firefox' })).toBe('firefox');
    expect(urlOpener('linux', {})).toBe('xdg-open');
    expect(urlOpener('darwin', { BROWSER: ' ' })).toBe('open');
    expect(urlOpener('win32', {})).toBe('explorer.exe');
  });
});

describe('openUrl', () => {
  it('passes the URL as the one argument and says it opened it', async () => {
    const o = await opener(0);
    expect(await openUrl('https://github.com/o/r/pull/1', o.path)).toBe('opened https://github.com/o/r/pull/1');
    expect(await o.calls()).toBe('https://github.com/o/r/pull/1\n');
  });

  it('shows the URL when the opener fails or does not exist', async () => {
    const o = await opener(3);
    expect(await openUrl('https://github.com/o/r/pull/1', o.path)).toBe(`https://github.com/o/r/pull/1 (${o.path} failed (exit 3))`);
    expect(await openUrl('https://github.com/o/r/pull/1', join(dir ?? '', 'missing'))).toMatch(/^https:\/\/github.com\/o\/r\/pull\/1 \(no .*missing to open it with\)$/);
  });

  it('never hands anything but a web address to the opener', async () => {
    const o = await opener(0);
    for (const url of ['file:///etc/passwd', '--help', 'https://a b']) expect(await openUrl(url, o.path)).toBe(`not a web address, not opened: ${url}`);
    expect(await o.calls()).toBe('');
  });
});
