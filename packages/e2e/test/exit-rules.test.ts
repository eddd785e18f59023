import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { Sandbox } from './sandbox.js';

// No `orange monitor` runs in this file: every exit below is acted on by the tmux wrapper's
// `orange agent exited` report alone, so a passing test proves the report path works by itself.

const LEAVING_AGENT = join(dirname(fileURLToPath(import.meta.url)), 'leaving-agent.mjs');

let box: Sandbox | undefined;
afterEach(async () => {
  await box?.cleanup();
  box = undefined;
});

const events = async (b: Sandbox, id: string, type: string) => (await b.history(id)).filter((e) => e.type === type);
const statuses = async (b: Sandbox, id: string) => (await events(b, id, 'status.changed')).map((e) => e.to as string);
const workerSpawns = async (b: Sandbox, id: string) => (await events(b, id, 'agent.spawned')).filter((e) => e.role === 'worker');

/** The engine's decisions on this task's agent exits, in order (from `orange.log`). */
async function exitDecisions(b: Sandbox, id: string): Promise<Array<{ role: string; source: string; decision: string }>> {
  const text = await readFile(join(b.paths.home, 'orange.log'), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((r) => r.msg === 'agent exited' && r.task === id)
    .map((r) => ({ role: r.role as string, source: r.source as string, decision: r.decision as string }));
}

/**
 * Waits until `count` exits of the task were decided and every `orange agent exited` report for
 * it has finished: the decision is logged before its consequences (crash count, history, spawns)
 * are written, and "nothing else happened" can only be checked once the report is done.
 */
async function waitForExitsHandled(b: Sandbox, id: string, count: number, timeoutMs = 15_000): Promise<void> {
  await b.waitFor(`${count} exit decision(s) for ${id}`, async () => (await exitDecisions(b, id)).length >= count, timeoutMs);
  await b.waitFor(
    `the exit reports for ${id} to finish`,
    async () => !(await b.running(`agent exited --project demo --task ${id}`)),
    timeoutMs,
  );
}

/** Adds a `leaving` harness (see leaving-agent.mjs) beside the sandbox's scripted one. */
async function addLeavingHarness(b: Sandbox): Promise<void> {
  const file = join(b.dir, 'orange.config.mjs');
  const config = await readFile(file, 'utf8');
  const leaving = `command({ name: 'leaving', worker: [${JSON.stringify(process.execPath)}, ${JSON.stringify(LEAVING_AGENT)}] })`;
  await writeFile(file, config.replace('plugins: [', `plugins: [${leaving}, `));
}

async function workerPane(b: Sandbox, id: string): Promise<string> {
  const task = await b.task(id);
  const pane = await b.tmux('capture-pane', '-p', '-J', '-S', '-', '-t', `=demo/${task.meta.id}:worker`);
  return pane.stdout;
}

describe('exit rules driven by the exit report alone', () => {
  it('sends a round-1 FAIL verdict left by an exiting reviewer back to the live worker', async () => {
    box = await Sandbox.create();
    const id = await box.createTask(['reviewer leaves a FAIL'], 'agent.reviews: FAIL,PASS\nagent.reviewer: silent\n');
    await box.waitFor('the round-1 auto-advance', async () => (await events(box!, id, 'auto.advanced')).length === 1, 30_000);

    const [advanced] = await events(box, id, 'auto.advanced');
    expect(advanced).toMatchObject({ from: 'agent-review', to: 'working' });
    expect(advanced!.reason).toMatch(/reviewer exited/);
    // The reviewer never asked for the transition: its exit report alone moved the task.
    const log = await box.agentLog(id);
    expect(log).toContain('reviewer: exiting without setting the status');
    expect(log).not.toMatch(/reviewer: orange task update --status/);
    // Only the ledger up to the advance: by now the worker may have fixed it and a round-2 reviewer exited too.
    const history = await box.history(id);
    const beforeAdvance = history.slice(0, history.findIndex((e) => e.type === 'auto.advanced'));
    expect(beforeAdvance.filter((e) => e.type === 'agent.exited')).toMatchObject([{ role: 'reviewer', source: 'exit', status: 'agent-review' }]);
    expect((await statuses(box, id)).slice(0, 4)).toEqual(['planning', 'working', 'agent-review', 'working']);
    expect(await events(box, id, 'agent.crashed')).toEqual([]);

    // The persistent worker, not a new one, gets the notice typed into its window.
    await box.waitFor('the worker to be notified', async () => /worker: notified: .*Review round 1 FAILED/.test(await box!.agentLog(id)), 10_000);
    expect(await workerPane(box, id)).toContain('Review round 1 FAILED');
    expect(await workerSpawns(box, id)).toHaveLength(1);
  });

  it('moves a round-2 FAIL verdict left by an exiting reviewer to stuck', async () => {
    box = await Sandbox.create();
    const id = await box.createTask(['reviewer leaves two FAILs'], 'agent.reviews: FAIL,FAIL\nagent.reviewer: silent\n');
    const stuck = await box.waitForStatus(id, 'stuck', 45_000);
    expect(stuck.meta.review_round).toBe(2);

    await box.waitFor('both auto-advances', async () => (await events(box!, id, 'auto.advanced')).length === 2, 10_000);
    expect(await events(box, id, 'auto.advanced')).toMatchObject([
      { from: 'agent-review', to: 'working' },
      { from: 'agent-review', to: 'stuck' },
    ]);
    expect(await statuses(box, id)).toEqual(['planning', 'working', 'agent-review', 'working', 'agent-review', 'stuck']);
    expect(await events(box, id, 'agent.crashed')).toEqual([]);
    await box.waitFor('the worker to be told it is stuck', async () => (await box!.agentLog(id)).includes('notified: [orange] The task is STUCK'), 10_000);
    expect(await workerSpawns(box, id)).toHaveLength(1);
  });

  it('counts a worker that exits in working without a Handoff as a crash and waits for respawn', async () => {
    box = await Sandbox.create();
    const id = await box.createTask(['worker leaves early'], 'agent.worker: crash-in-working\n');
    await waitForExitsHandled(box, id, 1);

    expect(await exitDecisions(box, id)).toEqual([{ role: 'worker', source: 'exit', decision: 'crash' }]);
    const crashed = await box.task(id);
    expect(crashed.meta).toMatchObject({ status: 'working', crash_count: 1, worker_spawn: null });
    expect(await events(box, id, 'agent.crashed')).toMatchObject([{ role: 'worker', status: 'working', crash_count: 1 }]);
    // The report has finished: no worker was started and none is running.
    expect(await workerSpawns(box, id)).toHaveLength(1);
    expect(await box.windows()).not.toContain(`demo/${crashed.meta.id}:worker`);

    const respawn = await box.orange(['task', 'respawn', id]);
    expect(respawn.stderr).toBe('');
    expect(respawn.code).toBe(0);
    expect(await workerSpawns(box, id)).toHaveLength(2);
    await box.waitFor('the respawned worker to start', async () => (await box!.agentLog(id)).includes('worker: started in working'), 10_000);
    // Same script, same early exit: the second crash reaches the limit.
    await box.waitForStatus(id, 'stuck', 15_000);
    expect(await events(box, id, 'agent.crashed')).toMatchObject([
      { status: 'working', crash_count: 1 },
      { status: 'working', crash_count: 2 },
    ]);
  });

  it('only marks a worker that exits in clarification after writing its Questions', async () => {
    box = await Sandbox.create();
    await addLeavingHarness(box);
    const id = await box.createTask(['--harness', 'leaving']);
    expect((await box.task(id)).meta.status).toBe('clarification');
    await waitForExitsHandled(box, id, 1);

    expect(await exitDecisions(box, id)).toEqual([{ role: 'worker', source: 'exit', decision: 'mark' }]);
    const task = await box.task(id);
    expect(task.meta).toMatchObject({ status: 'clarification', crash_count: 0, worker_spawn: null });
    expect(task.body).toContain('## Questions');
    expect(await events(box, id, 'agent.exited')).toMatchObject([{ role: 'worker', source: 'exit', status: 'clarification' }]);
    expect(await events(box, id, 'status.changed')).toEqual([]);
    expect(await events(box, id, 'agent.crashed')).toEqual([]);
    expect(await workerSpawns(box, id)).toHaveLength(1);
  });

  it('only marks a worker that exits in stuck', async () => {
    box = await Sandbox.create();
    await addLeavingHarness(box);
    // Two crashes in planning reach stuck with no worker alive; entering stuck spawns one.
    const id = await box.createTask(['--harness', 'leaving', 'crash until stuck'], 'agent.worker: crash\n');
    await waitForExitsHandled(box, id, 1);
    expect((await box.orange(['task', 'respawn', id])).code).toBe(0);
    await waitForExitsHandled(box, id, 3);

    expect(await exitDecisions(box, id)).toEqual([
      { role: 'worker', source: 'exit', decision: 'crash' },
      { role: 'worker', source: 'exit', decision: 'escalate' },
      { role: 'worker', source: 'exit', decision: 'mark' },
    ]);
    expect(await box.agentLog(id)).toContain('started in stuck; leaving');
    const task = await box.task(id);
    expect(task.meta).toMatchObject({ status: 'stuck', crash_count: 0, worker_spawn: null });
    expect((await events(box, id, 'agent.exited')).at(-1)).toMatchObject({ role: 'worker', source: 'exit', status: 'stuck' });
    expect(await statuses(box, id)).toEqual(['planning', 'stuck']);
    expect(await events(box, id, 'agent.crashed')).toHaveLength(2);
    expect(await workerSpawns(box, id)).toHaveLength(3);
  });
});
