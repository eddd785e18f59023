import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { listProcesses, processesInside } from '@orange/core';
import { afterEach, describe, expect, it } from 'vitest';
import { Sandbox } from './sandbox.js';

let box: Sandbox | undefined;
afterEach(async () => {
  await box?.cleanup();
  box = undefined;
});

// An agent that ignores SIGHUP and SIGTERM and leaves a process of its own session behind, working
// in the worktree — what a careless agent's `setsid sleep 1000 &` does.
const STUBBORN = "trap '' HUP TERM; setsid sleep 1000 & while :; do sleep 1; done";

/** Adds a `stubborn` harness beside the sandbox's scripted one. */
async function addStubbornHarness(b: Sandbox): Promise<void> {
  const file = join(b.dir, 'orange.config.mjs');
  const config = await readFile(file, 'utf8');
  const harness = `command({ name: 'stubborn', worker: ['sh', '-c', ${JSON.stringify(STUBBORN)}] })`;
  await writeFile(file, config.replace('plugins: [', `plugins: [${harness}, `));
}

describe('orange task cancel', () => {
  it('stops an agent that ignores SIGHUP and SIGTERM and the process it left in the worktree before freeing it', async () => {
    box = await Sandbox.create({ poolSize: 1 });
    await addStubbornHarness(box);
    const id = await box.createTask(['--harness', 'stubborn', 'ignore every signal']);
    const workspace = (await box.task(id)).meta.workspace!;
    let pids: number[] = [];
    // The wrapper, the shell, its loop's sleep and the setsid'd sleep all work in the worktree.
    await box.waitFor('the agent and its leftover to run in the worktree', async () => {
      pids = ((await processesInside([workspace]))?.get(workspace) ?? []).map((p) => p.pid);
      return pids.length >= 4;
    });

    const cancelled = await box.orange(['task', 'cancel', id, '--yes']);
    expect(cancelled, JSON.stringify(cancelled)).toMatchObject({ code: 0, stderr: '', stdout: `task ${id}: planning → cancelled` });
    const left = (await listProcesses()).filter((p) => pids.includes(p.pid) && !p.zombie);
    expect(left, `still running: ${JSON.stringify(left)}`).toEqual([]);
    expect((await box.task(id)).meta.workspace).toBeNull();
    expect((await box.history(id)).filter((e) => e.type === 'hook.failed')).toEqual([]);

    // The worktree is free and empty of processes: the next task gets it.
    const next = await box.createTask(['next task']);
    expect((await box.task(next)).meta.workspace).toBe(workspace);
  });
});
