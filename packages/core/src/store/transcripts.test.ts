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
});
