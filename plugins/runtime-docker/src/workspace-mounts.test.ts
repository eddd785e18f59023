import { mkdtemp, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git } from '@orange/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { workspaceMounts } from './workspace-mounts.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

async function repoWithWorktree(): Promise<{ repo: string; worktree: string }> {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'orange-docker-mounts-')));
  const repo = join(dir, 'repo');
  await git(dir, 'init', '-q', '-b', 'main', repo);
  await writeFile(join(repo, 'a.txt'), 'a\n');
  await git(repo, 'add', 'a.txt');
  await git(repo, 'commit', '-q', '-m', 'first');
  // A hooks folder a fresh clone may lack: the mounts must make it, so the agent cannot.
  await rm(join(repo, '.git', 'hooks'), { recursive: true, force: true });
  const worktree = join(dir, 'wt');
  await git(repo, 'worktree', 'add', '-q', '-b', 'task', worktree);
  return { repo, worktree };
}

describe('workspaceMounts', () => {
  it("mounts the worktree and the repository's git folder writable, and everything of git that runs or is obeyed on the host read-only", async () => {
    const { repo, worktree } = await repoWithWorktree();
    const git = join(repo, '.git');
    const own = join(git, 'worktrees', 'wt');
    const mounts = await workspaceMounts(worktree);
    expect(mounts.map((m) => [m.source, m.readonly ? 'ro' : 'rw'])).toEqual([
      [worktree, 'rw'],
      [join(worktree, '.git'), 'ro'],
      [git, 'rw'],
      [join(git, 'config'), 'ro'],
      [join(git, 'worktrees'), 'ro'],
      [join(git, 'hooks'), 'ro'],
      [join(git, 'info'), 'ro'],
      [join(git, 'modules'), 'ro'],
      [own, 'rw'],
      [join(own, 'commondir'), 'ro'],
      [join(own, 'gitdir'), 'ro'],
    ]);
    expect(mounts.every((m) => m.source === m.target)).toBe(true);
    expect((await stat(join(git, 'hooks'))).isDirectory()).toBe(true);
  });

  it('refuses a folder that is not a linked worktree, in one line', async () => {
    const { repo } = await repoWithWorktree();
    await expect(workspaceMounts(repo)).rejects.toThrow(/is not a git worktree/);
    await expect(workspaceMounts(join(dir!, 'nowhere'))).rejects.toMatchObject({ code: 'E_RUNTIME' });
  });
});
