import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi, type TestContext } from 'vitest';
import { cannotRunHere, nobodyCannotRead } from './cannot-run-here.js';

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

describe('cannotRunHere', () => {
  // A context whose skip records its note: the real one would end this test too.
  const context = (skipped: string[]) => ({ task: { name: 'needs a thing' }, skip: (note: string) => skipped.push(note) as never }) as unknown as TestContext;

  it('fails in CI, saying why', () => {
    vi.stubEnv('CI', 'true');
    const skipped: string[] = [];
    expect(() => cannotRunHere(context(skipped), 'the thing is missing')).toThrow('CI: this test must run, but the thing is missing');
    expect(skipped).toEqual([]);
  });

  it('skips elsewhere, printing why', () => {
    vi.stubEnv('CI', '');
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const skipped: string[] = [];
    cannotRunHere(context(skipped), 'the thing is missing');
    expect(skipped).toEqual(['the thing is missing']);
    expect(warn).toHaveBeenCalledWith('skipped "needs a thing": the thing is missing');
  });
});

describe('nobodyCannotRead', () => {
  it('says why user nobody cannot read a file in a folder closed to others, and nothing once it is open', async (context) => {
    if (process.getuid?.() !== 0) cannotRunHere(context, 'only root may run a process as user nobody');
    const dir = await mkdtemp(join(tmpdir(), 'orange-nobody-'));
    try {
      const file = join(dir, 'entry.js');
      await writeFile(file, '');
      await chmod(file, 0o644);
      await chmod(dir, 0o700);
      expect(nobodyCannotRead(file)).toBe(`user nobody cannot read ${file} (EACCES): a folder above it is closed to other users`);
      await chmod(dir, 0o755);
      expect(nobodyCannotRead(file)).toBeNull();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
