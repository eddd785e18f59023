import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { git, makeOrigin } from './git.js';
import { tempDir } from './temp-dir.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('makeOrigin', () => {
  it('makes a bare origin and a clone with one pushed commit by the test identity, origin/HEAD set', async () => {
    dir = await tempDir('test-support');
    const origin = join(dir, 'origin.git');
    const repo = join(dir, 'repo');
    const head = await makeOrigin(origin, repo);
    expect(await git(origin, 'rev-parse', 'main')).toBe(head);
    expect(await git(repo, 'log', '--format=%an <%ae> %s')).toBe('Orange Test <test@orange.invalid> initial commit');
    expect(await git(repo, 'symbolic-ref', 'refs/remotes/origin/HEAD')).toBe('refs/remotes/origin/main');
    expect(await git(repo, 'status', '--porcelain', '--branch')).toBe('## main...origin/main');
  });

  it('takes the branch, the files, more refspecs, and leaves origin/HEAD unset when asked', async () => {
    dir = await tempDir('test-support');
    const repo = join(dir, 'nested', 'app');
    await makeOrigin(join(dir, 'app.git'), repo, { branch: 'trunk', files: { 'a.txt': 'a\n', 'src/b.txt': 'b\n' }, alsoPush: ['trunk:develop'], originHead: false, message: 'first' });
    expect((await git(repo, 'ls-files')).split('\n')).toEqual(['a.txt', 'src/b.txt']);
    expect(await git(join(dir, 'app.git'), 'branch', '--format=%(refname:short)')).toBe('develop\ntrunk');
    await expect(git(repo, 'symbolic-ref', 'refs/remotes/origin/HEAD')).rejects.toThrow(/^git symbolic-ref refs\/remotes\/origin\/HEAD \(in .*\) failed: fatal: /);
  });
});
