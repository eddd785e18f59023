import { mkdir, mkdtemp, readdir, readFile, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { descriptorsOn } from '../../test/fixtures.js';
import { removeStaleTemps, writeFileAtomic, writeTemp } from './atomic.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'orange-atomic-')));
  dirs.push(dir);
  return dir;
}

// Above any pid_max (at most 2^22): no process runs under it.
const DEAD_PID = 2 ** 30;

describe('writeTemp', () => {
  it('writes the content as UTF-8 to a new hidden file beside the target, closed, and leaves the target alone', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'TASK.md'), 'old');
    const temp = await writeTemp(join(dir, 'TASK.md'), 'nouveau: é€\n');
    expect(dirname(temp.path)).toBe(dir);
    expect(basename(temp.path)).toMatch(new RegExp(`^\\.TASK\\.md\\.${process.pid}\\.[0-9a-f]{8}\\.tmp$`));
    expect(await readFile(temp.path)).toEqual(Buffer.from('nouveau: é€\n', 'utf8'));
    expect(await readFile(join(dir, 'TASK.md'), 'utf8')).toBe('old');
    if (process.platform === 'linux') expect(descriptorsOn(temp.path)).toEqual([]);
  });

  it('not backdated, records the mtime the write itself gave the file', async () => {
    const dir = await tempDir();
    for (let round = 0; round < 5; round++) {
      const temp = await writeTemp(join(dir, 'state.json'), `{"round":${round}}\n`, { sync: false });
      const after = await stat(temp.path);
      expect(temp.stat).toEqual({ ino: after.ino, size: after.size, mtimeMs: after.mtimeMs });
      // The write stamps change and modification time alike; a backdate would set the mtime a millisecond back.
      expect(after.ctimeMs - after.mtimeMs, `round ${round}`).toBeLessThan(1);
    }
  });

  it('that fails to write removes its temp file and rejects', async () => {
    const dir = await tempDir();
    // Not a string: the write itself throws, after the temp file was created.
    await expect(writeTemp(join(dir, 'TASK.md'), Symbol('not text') as unknown as string)).rejects.toMatchObject({ code: 'ERR_INVALID_ARG_TYPE' });
    expect(await readdir(dir)).toEqual([]);
  });

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

describe('writeFileAtomic', () => {
  it('replaces the file and leaves no temp file behind', async () => {
    const dir = await tempDir();
    const path = join(dir, 'state.json');
    await writeFile(path, 'old');
    await writeFileAtomic(path, 'new');
    expect(await readFile(path, 'utf8')).toBe('new');
    expect(await readdir(dir)).toEqual(['state.json']);
  });

  it('that cannot rename over its target (a directory) rejects and removes its temp file', async () => {
    const dir = await tempDir();
    await mkdir(join(dir, 'state.json'));
    await expect(writeFileAtomic(join(dir, 'state.json'), 'new')).rejects.toMatchObject({ code: 'EISDIR' });
    expect(await readdir(dir)).toEqual(['state.json']);
  });
});

describe('removeStaleTemps', () => {
  it('removes only the temp files of writers that no longer run, and names them', async () => {
    const dir = await tempDir();
    const stale = `.TASK.md.${DEAD_PID}.0123abcd.tmp`;
    const keep = [
      'TASK.md',
      `.TASK.md.${process.pid}.0123abcd.tmp`, // this process's own write, under way
      `.TASK.md.${process.ppid}.0123abcd.tmp`, // a live writer's
      `.TASK.md.${DEAD_PID}.0123abcd.tmp.bak`, // not a temp file's name
      `TASK.md.${DEAD_PID}.0123abcd.tmp`,
    ];
    for (const name of [stale, ...keep]) await writeFile(join(dir, name), 'x');
    expect(await removeStaleTemps(dir)).toEqual([stale]);
    expect((await readdir(dir)).sort()).toEqual([...keep].sort());
    expect(await removeStaleTemps(dir)).toEqual([]);
  });

  it('finds nothing in a folder that does not exist', async () => {
    const dir = await tempDir();
    expect(await removeStaleTemps(join(dir, 'absent'))).toEqual([]);
  });

  it('is not put off by stale files that another cleaner removes while it runs', async () => {
    const dir = await tempDir();
    const stale = Array.from({ length: 20 }, (_, i) => `.TASK.md.${DEAD_PID}.${i.toString(16).padStart(8, '0')}.tmp`);
    for (const name of stale) await writeFile(join(dir, name), 'x');
    // Its listing is under way first; the other cleaner's removals land before most of its own.
    const running = removeStaleTemps(dir);
    await Promise.all(stale.map((name) => rm(join(dir, name), { force: true })));
    const removed = await running;
    expect(stale).toEqual(expect.arrayContaining(removed));
    expect(await readdir(dir)).toEqual([]);
  });
});
