import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { pullRequestUrl, standInGh } from './stand-in-gh.js';
import { tempDir } from './temp-dir.js';

const run = promisify(execFile);
/** Runs `gh` by name, found on the stand-in's PATH, as a program under test would. */
async function gh(env: Record<string, string>, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return run('gh', args, { env: { ...process.env, ...env } }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
}

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('standInGh', () => {
  it('answers by the longest key a call begins with, printing only the --json fields asked for, and records every call', async () => {
    dir = await tempDir('gh');
    const stand = await standInGh(dir);
    await stand.answer({ 'pr view': { stderr: 'no pull requests found for branch "x"', code: 1 }, 'pr view 7': { stdout: { state: 'OPEN', url: 'u', extra: 1 } } });
    expect(await gh(stand.env, 'pr', 'view', '7', '--json', 'state,url')).toEqual({ code: 0, stdout: '{"state":"OPEN","url":"u"}\n', stderr: '' });
    expect(await gh(stand.env, 'pr', 'view', 'x', '--json', 'state')).toEqual({ code: 1, stdout: '', stderr: 'no pull requests found for branch "x"\n' });
    expect(await gh(stand.env, 'issue', 'view', '1')).toEqual({ code: 1, stdout: '', stderr: 'unexpected gh call: issue view 1\n' });
    expect(await stand.calls()).toEqual([['pr', 'view', '7', '--json', 'state,url'], ['pr', 'view', 'x', '--json', 'state'], ['issue', 'view', '1']]);
  });

  it('answers gh api by its path, pages joined with --paginate', async () => {
    dir = await tempDir('gh');
    const stand = await standInGh(dir);
    await stand.answer({ 'api repos/a/b/pulls/1/reviews': { pages: ['[1]', '[2]'] } });
    expect((await gh(stand.env, 'api', '--paginate', 'repos/a/b/pulls/1/reviews?per_page=100')).stdout).toBe('[1][2]\n');
    expect((await gh(stand.env, 'api', 'repos/a/b/pulls/1/reviews')).stdout).toBe('[1]\n');
  });

  it('plays a pull request: created with the next number, then in the state the test sets', async () => {
    dir = await tempDir('gh');
    const stand = await standInGh(dir);
    await stand.nextPullRequest(21);
    await stand.setPullRequestState(21, 'MERGED');
    expect((await gh(stand.env, 'auth', 'status')).code).toBe(0);
    expect((await gh(stand.env, 'pr', 'create', '--title', 't')).stdout).toBe(`${pullRequestUrl(21)}\n`);
    expect(JSON.parse((await gh(stand.env, 'pr', 'view', pullRequestUrl(21), '--json', 'state,url,latestReviews')).stdout)).toEqual({ state: 'MERGED', url: pullRequestUrl(21), latestReviews: [] });
  });
});
