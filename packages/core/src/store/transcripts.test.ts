import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { OrangePaths } from './paths.js';
import { listTranscripts, pruneTranscripts } from './transcripts.js';

let home: string;
afterEach(async () => home && rm(home, { recursive: true, force: true }));

const ID = 'V1StGXR8Z5jdHi6BmyT4a';

async function logs(): Promise<{ paths: OrangePaths; dir: string }> {
  home = await mkdtemp(join(tmpdir(), 'orange-transcripts-'));
  const paths = new OrangePaths(home);
  const dir = paths.taskLogsDir('demo', ID);
  await mkdir(dir, { recursive: true });
  return { paths, dir };
}

/** Writes a transcript file with a given age, so the order is certain. */
async function put(dir: string, name: string, text: string, secondsAgo: number): Promise<void> {
  await writeFile(join(dir, name), text);
  const at = new Date(Date.now() - secondsAgo * 1000);
  await utimes(join(dir, name), at, at);
}

describe('listTranscripts', () => {
  it('lists each spawn once, oldest first, counting the rotated part, and skips links and strangers', async () => {
    const { paths, dir } = await logs();
    await put(dir, 'worker-aaa.log.1', '1234', 30);
    await put(dir, 'worker-aaa.log', '12', 20);
    await put(dir, 'reviewer-bbb.log', '123', 10);
    await put(dir, 'notes.txt', 'x', 5);
    await symlink('/etc/passwd', join(dir, 'worker-ccc.log'));
    const found = await listTranscripts(paths, 'demo', ID);
    expect(found.map((t) => [t.role, t.spawn, t.bytes, t.rotated !== null])).toEqual([
      ['worker', 'aaa', 6, true],
      ['reviewer', 'bbb', 3, false],
    ]);
    expect(found[0]?.file).toBe(paths.transcriptFile('demo', ID, 'worker', 'aaa'));
  });

  // Linux's PATH_MAX (4096): a logs folder path just under it lists, but its files' paths are over it.
  it.runIf(process.platform === 'linux')('skips a log file it cannot look at instead of failing the listing', async () => {
    home = await mkdtemp(join(tmpdir(), 'orange-transcripts-'));
    const tail = join('tasks', 'demo', ID, 'logs');
    const filler = 4090 - home.length - tail.length - 2;
    const parts = Array.from({ length: Math.ceil(filler / 201) }, (_, i) => 'd'.repeat(Math.min(200, filler - i * 201)));
    const deep = join(home, ...parts);
    const paths = new OrangePaths(deep);
    const dir = paths.taskLogsDir('demo', ID);
    expect(dir.length).toBeGreaterThan(4080);
    expect(dir.length).toBeLessThan(4095);
    await mkdir(dir, { recursive: true });
    // Made from inside the folder: its full path is too long for any call that takes one.
    execFileSync('touch', ['worker-aaa.log'], { cwd: dir });
    try {
      expect(await readdir(dir)).toEqual(['worker-aaa.log']);
      expect(await listTranscripts(paths, 'demo', ID)).toEqual([]);
    } finally {
      execFileSync('rm', ['worker-aaa.log'], { cwd: dir });
    }
  });

  it('gives an empty list for a task with no logs directory', async () => {
    home = await mkdtemp(join(tmpdir(), 'orange-transcripts-'));
    expect(await listTranscripts(new OrangePaths(home), 'demo', ID)).toEqual([]);
  });
});

describe('pruneTranscripts', () => {
  it("removes a role's oldest transcripts beyond the number kept, both parts, and leaves the other role alone", async () => {
    const { paths, dir } = await logs();
    for (let i = 0; i < 4; i++) await put(dir, `worker-w${i}.log`, 'x', 100 - i);
    await put(dir, 'worker-w0.log.1', 'x', 100);
    await put(dir, 'reviewer-r0.log', 'x', 200);
    await pruneTranscripts(paths, 'demo', ID, 'worker', 2);
    expect((await readdir(dir)).sort()).toEqual(['reviewer-r0.log', 'worker-w2.log', 'worker-w3.log']);
  });

  it('removes an old transcript of which only the rotated part is left', async () => {
    const { paths, dir } = await logs();
    await put(dir, 'worker-w0.log.1', 'x', 100);
    await put(dir, 'worker-w1.log', 'x', 50);
    await pruneTranscripts(paths, 'demo', ID, 'worker', 1);
    expect(await readdir(dir)).toEqual(['worker-w1.log']);
  });
});
