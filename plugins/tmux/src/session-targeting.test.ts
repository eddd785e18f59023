import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { listProcesses, Monitor, processTree } from '@orange/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, tmuxSandbox, type TmuxSandbox } from '../test/tmux-sandbox.js';
import { TmuxClient } from './tmux-client.js';
import { panePids } from './tmux-kill.js';

// Branch names git accepts (`git check-ref-format --branch`) that tmux would escape (`$`), split
// as a command (a trailing `;`), expand as a format (`#`, `%`, `{}`) or a shell would interpret.
const BRANCHES = ['feat$x', 'fix;', 'a#b', "it's", 'say"hi"', 'back`tick`', '100%', 'x{y}'];

// Each agent writes what is typed into its window to a file, and otherwise idles.
const AGENT = ['sh', '-c', 'cat > "$ORANGE_HOME/typed-$ORANGE_TASK_ID-$ORANGE_ROLE.txt"'];

let box: TmuxSandbox;
let client: TmuxClient;

beforeAll(async () => {
  box = await tmuxSandbox();
  box.setAgent(() => AGENT);
  client = new TmuxClient('tmux', box.socket);
});
afterAll(async () => {
  await box.cleanup();
});

/** Processes still running (zombies excluded) of the panes that had these pids. */
async function alive(pids: readonly number[]): Promise<number[]> {
  return processTree(await listProcesses(), pids)
    .filter((p) => !p.zombie)
    .map((p) => p.pid);
}

const typed = (id: string, role: string) => readFile(join(box.home, `typed-${id}-${role}.txt`), 'utf8').catch(() => '');

describe('tasks whose branch holds characters special to tmux or a shell', () => {
  it.each(BRANCHES)('%s: spawn, notify_worker, kill_reviewer and cancel all reach the agents, and leave none running', async (branch) => {
    const task = await box.newTask({ branch });
    const ref = { project: 'demo', id: task.meta.id };
    const session = `demo/${task.meta.id}`;
    expect((await box.read(task)).meta.tmux_session).toBe(session);
    expect(await box.windows()).toContain(`${session}:worker`);
    const workers = await panePids(client, 'session', `=${session}`);
    expect(workers).toHaveLength(1);

    await box.runAction(task, 'notify_worker', { from: 'agent-review', to: 'working' });
    await eventually(async () => (await typed(task.meta.id, 'worker')).includes('FAILED'));

    await box.writeSection(task, 'Plan', 'APPROACH: do it');
    await box.orange.engine.transition(ref, 'working');
    await box.writeSection(task, 'Handoff', 'DONE: did it');
    await box.orange.engine.transition(ref, 'agent-review');
    const reviewerWindow = `review-1-${(await box.read(task)).meta.reviewer_spawn}`;
    expect(await box.windows()).toContain(`${session}:${reviewerWindow}`);
    const reviewers = await panePids(client, 'window', `=${session}:=${reviewerWindow}`);
    expect(reviewers).toHaveLength(1);
    await box.writeSection(task, 'Review', 'Verdict: PASS\nLooks good.');
    const reviewed = await box.orange.engine.transition(ref, 'reviewing');
    expect(reviewed.failedHooks).toEqual([]);
    expect(await box.windows()).not.toContain(`${session}:${reviewerWindow}`);
    expect(await alive(reviewers)).toEqual([]);
    await eventually(async () => (await typed(task.meta.id, 'worker')).includes('Review PASSED'));

    const cancelled = await box.orange.engine.transition(ref, 'cancelled');
    expect(cancelled.failedHooks).toEqual([]);
    expect((await box.windows()).filter((w) => w.startsWith(`${session}:`))).toEqual([]);
    expect(await alive(workers)).toEqual([]);
  });

  it('the monitor reaps the session of a finished task whatever its branch, leaving no agent running', async () => {
    const tasks = [];
    for (const branch of BRANCHES) tasks.push(await box.newTask({ branch: `orphan/${branch}` }));
    const pids: number[] = [];
    for (const task of tasks) {
      pids.push(...(await panePids(client, 'session', `=demo/${task.meta.id}`)));
      // Finished without its hooks running (its state and ledger say so, its session lives on):
      // an orphan. The monitor confirms the status from these files, never from the listing alone.
      await box.orange.store.patch('demo', task.meta.id, { status: 'cancelled' });
      await box.orange.store.appendHistory('demo', task.meta.id, { type: 'status.changed', from: task.meta.status, to: 'cancelled', cause: 'request' });
    }
    expect(pids).toHaveLength(BRANCHES.length);
    const report = await new Monitor(box.orange).pass();
    expect([...report.sessionsKilled].sort()).toEqual(tasks.map((t) => `demo/${t.meta.id}`).sort());
    expect(await box.windows()).toEqual([]);
    expect(await alive(pids)).toEqual([]);
  });
});
