import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliSandbox } from './cli-sandbox.js';

let box: CliSandbox;
beforeAll(async () => {
  box = await CliSandbox.create({ poolSize: 2 });
});
afterAll(() => box?.cleanup());

interface Workspace {
  name: string;
  project: string;
  path: string;
  task: string | null;
}

describe('orange workspace', () => {
  it('list says there are no worktrees before any task started', async () => {
    const { workspaces } = await box.json<{ workspaces: Workspace[] }>(['workspace', 'list']);
    expect(workspaces).toEqual([]);
    const human = await box.orange(['workspace', 'list']);
    expect(human.stdout.trim()).toBe('no worktrees yet (they are created when tasks start, or by orange workspace init)');
  });

  it("init creates every worktree of the project's pool as a git worktree of the repository", async () => {
    const { workspaces } = await box.json<{ workspaces: Workspace[] }>(['workspace', 'init']);
    expect(workspaces.map((w) => w.name)).toEqual(['demo--1', 'demo--2']);
    for (const w of workspaces) {
      expect(w).toMatchObject({ project: 'demo', task: null, path: `${box.paths.workspacesDir}/${w.name}` });
      expect(existsSync(w.path)).toBe(true);
    }
    expect(await box.git(box.repo, 'worktree', 'list', '--porcelain')).toContain(`worktree ${box.paths.workspacesDir}/demo--2`);
  });

  it('list shows which task holds each worktree, for the current project or --all', async () => {
    const other = await box.addProject('other', 1);
    const task = await box.startTask('feature/holder');
    const { workspaces } = await box.json<{ workspaces: Workspace[] }>(['workspace', 'list']);
    expect(workspaces.find((w) => w.path === task.workspace)).toMatchObject({ project: 'demo', task: task.id });
    expect(workspaces.filter((w) => w.task === null)).toHaveLength(1);
    await box.json(['workspace', 'init'], { cwd: other });
    const all = await box.json<{ workspaces: Workspace[] }>(['workspace', 'list', '--all']);
    expect(all.workspaces.map((w) => w.name).sort()).toEqual(['demo--1', 'demo--2', 'other--1']);
    const human = await box.orange(['workspace', 'list']);
    expect(human.stdout).toMatch(new RegExp(`^demo--\\d\\s+${task.id}\\s+`, 'm'));
    expect(human.stdout).toMatch(/^demo--\d\s+free\s+/m);
  });

  it('init and list print the same table: NAME, TASK (free when none holds it), PATH', async () => {
    const init = await box.orange(['workspace', 'init']);
    const list = await box.orange(['workspace', 'list']);
    expect(init.code).toBe(0);
    expect(init.stdout.split('\n')[0]).toMatch(/^NAME\s+TASK\s+PATH$/);
    expect(init.stdout).toMatch(new RegExp(`^demo--\\d\\s+free\\s+${box.paths.workspacesDir}/demo--\\d$`, 'm'));
    // init lists the project's pool as list does: the same header, rows and widths.
    expect(init.stdout).toBe(list.stdout);
  });

  it('gc frees a worktree whose task no longer exists, and nothing else', async () => {
    const kept = await box.json<{ workspaces: Workspace[] }>(['workspace', 'list']);
    const held = kept.workspaces.find((w) => w.task !== null) as Workspace;
    const nothing = await box.json<{ freed: Workspace[] }>(['workspace', 'gc']);
    expect(nothing.freed).toEqual([]);

    // As if the task's files were lost; its idle agent keeps running and does not matter here.
    await rm(box.paths.taskDir('demo', held.task as string), { recursive: true, force: true });
    const { freed } = await box.json<{ freed: Workspace[] }>(['workspace', 'gc']);
    expect(freed).toEqual([expect.objectContaining({ name: held.name, task: held.task })]);
    const after = await box.json<{ workspaces: Workspace[] }>(['workspace', 'list']);
    expect(after.workspaces.every((w) => w.task === null)).toBe(true);
    const human = await box.orange(['workspace', 'gc']);
    expect(human.stdout.trim()).toBe('nothing to free');
  });
});
