import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Project } from '@orange/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliSandbox } from './cli-sandbox.js';

let box: CliSandbox;
beforeAll(async () => {
  box = await CliSandbox.create({ project: null });
});
afterAll(() => box?.cleanup());

describe('orange project', () => {
  it('add registers the repository it runs in and detects the default branch from origin/HEAD', async () => {
    // The clone has another branch checked out: only origin/HEAD says "trunk".
    const repo = join(box.dir, 'trunk-repo');
    await box.makeRepo(repo, join(box.dir, 'trunk-origin.git'), 'trunk');
    await box.git(repo, 'checkout', '-q', '-b', 'feature/elsewhere');
    await mkdir(join(repo, 'src'));
    const { project } = await box.json<{ project: Project }>(['project', 'add', '--pool-size', '3'], { cwd: join(repo, 'src') });
    expect(project).toMatchObject({ name: 'trunk-repo', path: repo, default_branch: 'trunk', pool_size: 3 });
  });

  it('add prints one line for people', async () => {
    const repo = join(box.dir, 'human-repo');
    await box.makeRepo(repo, join(box.dir, 'human-origin.git'));
    const added = await box.orange(['project', 'add', repo, '--name', 'human']);
    expect(added).toMatchObject({ code: 0, stderr: '' });
    expect(added.stdout.trim()).toBe(`added project human: ${repo} (branch main, pool 2)`);
  });

  it('add refuses a directory that is not a git repository', async () => {
    const plain = join(box.dir, 'plain');
    await mkdir(plain);
    const refused = await box.jsonError(['project', 'add', plain]);
    expect(refused).toMatchObject({ code: 'E_INVALID_INPUT', exit: 1 });
    expect(refused.error).toBe(`${plain} is not inside a git repository`);
    const human = await box.orange(['project', 'add', plain]);
    expect(human.code).toBe(1);
    expect(human.stderr).toBe(`orange: ${plain} is not inside a git repository`);
  });

  it('add refuses a name that is already registered, and a repository registered under another name', async () => {
    const repo = join(box.dir, 'dup-repo');
    await box.makeRepo(repo, join(box.dir, 'dup-origin.git'));
    await box.json(['project', 'add', repo, '--name', 'dup']);
    const other = join(box.dir, 'other-repo');
    await box.makeRepo(other, join(box.dir, 'other-origin.git'));
    const sameName = await box.jsonError(['project', 'add', other, '--name', 'dup']);
    expect(sameName).toMatchObject({ code: 'E_PROJECT_EXISTS', exit: 1, error: 'a project named "dup" is already registered' });
    const samePath = await box.jsonError(['project', 'add', repo, '--name', 'dup2']);
    expect(samePath).toMatchObject({ code: 'E_PROJECT_EXISTS', error: `${repo} is already registered` });
    const { projects } = await box.json<{ projects: Project[] }>(['project', 'list']);
    expect(projects.filter((p) => p.path === other || p.name === 'dup2')).toEqual([]);
  });

  it('list returns every project as JSON, and a table for people', async () => {
    const { projects } = await box.json<{ projects: Project[] }>(['project', 'list']);
    expect(projects.map((p) => p.name)).toEqual(expect.arrayContaining(['trunk-repo', 'human', 'dup']));
    for (const p of projects) expect(Object.keys(p)).toEqual(expect.arrayContaining(['name', 'path', 'default_branch', 'pool_size']));
    const table = await box.orange(['project', 'list']);
    expect(table.stdout.split('\n')[0]).toMatch(/^NAME\s+PATH\s+BRANCH\s+POOL\s+WORKFLOW$/);
    expect(table.stdout).toMatch(/^human\s+\S+human-repo\s+main\s+2\s+default$/m);
  });

  it('update changes pool size, default branch and workflow of the project it runs in', async () => {
    await box.git(join(box.dir, 'human-repo'), 'branch', 'develop');
    const { project } = await box.json<{ project: Project }>(['project', 'update', '--pool-size', '4', '--default-branch', 'develop', '--workflow', 'classic'], {
      cwd: join(box.dir, 'human-repo'),
    });
    expect(project).toMatchObject({ name: 'human', pool_size: 4, default_branch: 'develop', workflow: 'classic' });
    const { projects } = await box.json<{ projects: Project[] }>(['project', 'list']);
    expect(projects.find((p) => p.name === 'human')).toMatchObject({ pool_size: 4, workflow: 'classic' });
  });

  it('refuses a default branch that exists neither on the remote nor locally (add and update), changing nothing', async () => {
    const repo = join(box.dir, 'human-repo');
    const before = await box.json<{ projects: Project[] }>(['project', 'list']);
    const updated = await box.jsonError(['project', 'update', 'human', '--default-branch', 'nowhere']);
    expect(updated).toMatchObject({ code: 'E_WORKSPACE', exit: 1 });
    expect(updated.error).toBe(`project human: neither origin/nowhere nor a local branch nowhere exists in ${repo}`);
    const other = await box.addProject('branchless');
    await box.json(['project', 'remove', 'branchless']);
    const added = await box.jsonError(['project', 'add', other, '--name', 'branchless', '--default-branch', 'nowhere']);
    expect(added).toMatchObject({ code: 'E_WORKSPACE', exit: 1 });
    expect(await box.json<{ projects: Project[] }>(['project', 'list'])).toEqual(before);
  });

  it('update refuses an unknown workflow and a call with nothing to change', async () => {
    const unknown = await box.jsonError(['project', 'update', 'human', '--workflow', 'nope']);
    expect(unknown.exit).toBe(1);
    expect(unknown.error).toMatch(/no workflow named "nope"/);
    const nothing = await box.jsonError(['project', 'update', 'human']);
    expect(nothing).toMatchObject({ code: 'E_USAGE', exit: 2 });
  });

  it('remove refuses a project with unfinished tasks, naming them, and keeps it', async () => {
    const task = await box.createTask(['feature/open', 'still open'], { cwd: join(box.dir, 'dup-repo') });
    const refused = await box.jsonError(['project', 'remove', 'dup']);
    expect(refused).toMatchObject({ code: 'E_NOT_ALLOWED', exit: 1 });
    expect(refused.error).toContain(task.id);
    const { projects } = await box.json<{ projects: Project[] }>(['project', 'list']);
    expect(projects.map((p) => p.name)).toContain('dup');
  });

  it("leaves the repository's git settings as it found them: the exclude lines it added for its worktrees are taken out on remove, the user's own kept", async () => {
    const repo = await box.addProject('tidy');
    const exclude = join(repo, '.git', 'info', 'exclude');
    // The user ignores one of the names Orange would add, and something of their own.
    await appendFile(exclude, '.claude/\nmy-notes.txt\n');
    const before = { exclude: await readFile(exclude, 'utf8'), config: await box.git(repo, 'config', '--local', '--list') };
    const task = await box.createTask(['feature/tidy', 'tidy up'], { spawn: true, cwd: repo });
    expect(task.workspace).toBeTruthy();
    // While the project is registered its worktrees ignore TASK.md; the user's `.claude/` line is not repeated.
    const during = (await readFile(exclude, 'utf8')).split('\n');
    expect(during).toContain('TASK.md');
    expect(during.filter((l) => l === '.claude/')).toHaveLength(1);
    await box.json(['task', 'cancel', task.id, '--yes'], { cwd: repo });
    await box.json(['project', 'remove', 'tidy']);
    expect(await readFile(exclude, 'utf8')).toBe(before.exclude);
    expect(await box.git(repo, 'config', '--local', '--list')).toBe(before.config);
    expect(await box.git(repo, 'worktree', 'list')).not.toContain('tidy--');
  });

  it('remove unregisters a project, removes its worktrees and leaves its repository alone', async () => {
    const repo = join(box.dir, 'human-repo');
    // An earlier test pointed it at another branch.
    await box.json(['project', 'update', 'human', '--default-branch', 'main', '--pool-size', '2']);
    const { workspaces } = await box.json<{ workspaces: { path: string }[] }>(['workspace', 'init'], { cwd: repo });
    expect(workspaces).toHaveLength(2);
    const { removed, worktreesRemoved } = await box.json<{ removed: Project; worktreesRemoved: string[] }>(['project', 'remove', 'human']);
    expect(removed.name).toBe('human');
    expect(worktreesRemoved).toEqual(workspaces.map((w) => w.path));
    expect(await box.git(repo, 'worktree', 'list')).not.toContain('human--');
    const { projects } = await box.json<{ projects: Project[] }>(['project', 'list']);
    expect(projects.map((p) => p.name)).not.toContain('human');
    expect(await box.git(join(box.dir, 'human-repo'), 'log', '--format=%s')).toBe('initial commit');
    const again = await box.jsonError(['project', 'remove', 'human']);
    expect(again).toMatchObject({ code: 'E_PROJECT_NOT_FOUND', exit: 1 });
  });
});
