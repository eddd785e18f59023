import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OrangePaths } from '@orange/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TaskWatcher } from './task-watcher.js';

const A = 'A'.repeat(21);
const B = 'B'.repeat(21);
let home: string;
let watcher: TaskWatcher | undefined;
afterEach(async () => {
  watcher?.close();
  await rm(home, { recursive: true, force: true });
});

async function setup(): Promise<{ paths: OrangePaths; seen: string[] }> {
  home = await mkdtemp(join(tmpdir(), 'orange-watch-'));
  const paths = new OrangePaths(home);
  await mkdir(paths.taskDir('app', A), { recursive: true });
  const seen: string[] = [];
  watcher = new TaskWatcher(paths, (project, id) => seen.push(`${project}/${id}`), () => seen.push('overflow'));
  return { paths, seen };
}

describe('the task watcher', () => {
  it('follows a project that has no task yet', async () => {
    const { paths, seen } = await setup();
    await watcher!.start('new');
    await mkdir(paths.taskDir('new', B));
    await vi.waitFor(() => expect(seen).toContain(`new/${B}`), { timeout: 2000 });
  });

  it("reports a task whose state is renamed in, a task created in a project, and a new project's tasks", async () => {
    const { paths, seen } = await setup();
    await watcher!.start();
    await writeFile(join(paths.taskDir('app', A), '.state.json.tmp'), '{}');
    await rename(join(paths.taskDir('app', A), '.state.json.tmp'), paths.taskStateFile('app', A));
    await vi.waitFor(() => expect(seen).toContain(`app/${A}`), { timeout: 2000 });
    await mkdir(paths.taskDir('app', B));
    await vi.waitFor(() => expect(seen).toContain(`app/${B}`), { timeout: 2000 });
    await mkdir(paths.taskDir('web', A), { recursive: true });
    await vi.waitFor(() => expect(seen).toContain(`web/${A}`), { timeout: 2000 });
    expect(seen).not.toContain('overflow');
  });

  it("reports a TASK.md saved in the task's agent folder, by rename or in place", async () => {
    const { paths, seen } = await setup();
    await mkdir(paths.agentDir('app', A));
    await writeFile(paths.taskFile('app', A), 'one\n');
    await watcher!.start();
    await writeFile(join(paths.agentDir('app', A), '.TASK.md.tmp'), 'two\n');
    await rename(join(paths.agentDir('app', A), '.TASK.md.tmp'), paths.taskFile('app', A));
    await vi.waitFor(() => expect(seen).toContain(`app/${A}`), { timeout: 2000 });
    seen.splice(0);
    await writeFile(paths.taskFile('app', A), 'three\n');
    await vi.waitFor(() => expect(seen).toContain(`app/${A}`), { timeout: 2000 });
  });

  it('follows an agent folder made after the task folder was watched (a new task, or one moved from the layout before agent/)', async () => {
    const { paths, seen } = await setup();
    await mkdir(paths.taskDir('app', B));
    await watcher!.start();
    await mkdir(paths.agentDir('app', A));
    await vi.waitFor(() => expect(seen).toContain(`app/${A}`), { timeout: 2000 });
    // Events of the mkdir itself may still arrive. Every watch of a process reads one inotify queue,
    // in order: once an event of task B written after the mkdir is in, so is every event before it.
    await writeFile(join(paths.taskDir('app', B), 'history.jsonl'), '{}\n');
    await vi.waitFor(() => expect(seen).toContain(`app/${B}`), { timeout: 2000 });
    seen.splice(0);
    await writeFile(paths.taskFile('app', A), 'edited\n');
    await vi.waitFor(() => expect(seen).toContain(`app/${A}`), { timeout: 2000 });
  });

  it('reports the tasks of a project that appears with them already inside (its folder cannot be watched before they are there)', async () => {
    const { paths, seen } = await setup();
    await watcher!.start();
    // Made aside and moved in whole: no watch can see the task's folder being made.
    const aside = join(home, 'aside', 'web');
    await mkdir(join(aside, A), { recursive: true });
    await mkdir(join(aside, B));
    await rename(aside, paths.projectTasksDir('web'));
    await vi.waitFor(() => expect(seen).toEqual(expect.arrayContaining([`web/${A}`, `web/${B}`])), { timeout: 2000 });
    expect(seen).not.toContain('overflow');
  });

  it('reports a deleted task, and follows only the project it was started for', async () => {
    const { paths, seen } = await setup();
    await mkdir(paths.taskDir('other', B), { recursive: true });
    await watcher!.start('app');
    await writeFile(join(paths.taskDir('other', B), 'history.jsonl'), '{}\n');
    await rm(paths.taskDir('app', A), { recursive: true });
    await vi.waitFor(() => expect(seen).toContain(`app/${A}`), { timeout: 2000 });
    expect(seen.some((s) => s.startsWith('other/'))).toBe(false);
  });
});
