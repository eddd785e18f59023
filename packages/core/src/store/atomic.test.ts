import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeTemp } from './atomic.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe('writeTemp', () => {
  it('backdated, gives an identity that a same-size write into the file right after does not share', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'orange-atomic-'));
    dirs.push(dir);
    // Where file times move in coarse ticks (Linux before 6.13: a 4 ms jiffy), a write this soon
    // after keeps inode, size and mtime without the backdate, and the recorded identity would match.
    for (let round = 0; round < 20; round++) {
      const temp = await writeTemp(join(dir, 'TASK.md'), `version ${round}a\n`, { sync: false, backdate: true });
      await writeFile(temp.path, `version ${round}b\n`);
      const after = await stat(temp.path);
      expect([after.ino, after.size]).toEqual([temp.stat.ino, temp.stat.size]);
      expect(after.mtimeMs, `round ${round}`).toBeGreaterThan(temp.stat.mtimeMs);
    }
  });

  it('backdated, records an mtime at least a millisecond before the write itself (whatever tick the kernel keeps times in)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'orange-atomic-'));
    dirs.push(dir);
    // The change time is the kernel's own stamp of the write (and of the backdating after it): a
    // write in the same tick gets at least that mtime, so the recorded one must be older. Without
    // the backdate both are the same stamp.
    for (let round = 0; round < 20; round++) {
      const temp = await writeTemp(join(dir, 'TASK.md'), `version ${round}\n`, { sync: false, backdate: true });
      const { ctimeMs } = await stat(temp.path);
      expect(ctimeMs - temp.stat.mtimeMs, `round ${round}`).toBeGreaterThanOrEqual(1);
    }
  });
});
