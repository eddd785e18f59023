import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { TaskStore } from '@orange/core';
import { processAlive, signalProcess } from '@orange/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { pipelineCalls, pipelineSandbox } from './pipeline-sandbox.js';
import { Sandbox } from './sandbox.js';

// The pipeline workflow end to end: the driver really runs in the task's tmux session, each
// phase is a real headless process (pipeline-agent.mjs) that calls the real CLI and reports a
// cost through the command harness's result file, checks really run in the worktree.


type Entry = 'hang' | { ok?: boolean; cost?: number; intent?: string; confidence?: number; write?: string };
type Plan = Record<string, Entry[]>;

let box: Sandbox | undefined;
afterEach(async () => {
  await box?.cleanup();
  box = undefined;
});

/** A sandbox whose projects run the pipeline workflow with the scripted headless agent and `plan`. */
function pipelineBox(plan: Plan, options: Record<string, unknown> = {}): Promise<Sandbox> {
  return pipelineSandbox(plan, { settings: { intents: { bugfix: { phases: ['reproduce', 'fix'] }, feature: { phases: ['plan', 'implement'] } }, ...options } });
}

const calls = pipelineCalls;

async function statuses(b: Sandbox, id: string): Promise<string[]> {
  return (await b.history(id)).filter((e) => e.type === 'status.changed').map((e) => e.to as string);
}

async function checkpoint(b: Sandbox, id: string): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(join(b.paths.taskDir('demo', id), 'checkpoint.json'), 'utf8')) as Record<string, unknown>;
}

async function explain(b: Sandbox, id: string): Promise<string> {
  const history = (await b.history(id)).map((e) => JSON.stringify(e)).join('\n');
  return `history:\n${history}\ncalls:\n${(await calls(b)).map((c) => `${c.phase} ${c.model} ${JSON.stringify(c.prompt.slice(0, 80))}`).join('\n')}\nlog:\n${(await readFile(join(b.paths.home, 'orange.log'), 'utf8').catch(() => '')).slice(-4000)}`;
}

/**
 * Waits for the status and for its move to have finished — its actions run under the task lock, so
 * the lock taken once is the move over — then for the checkpoint to say it (written with the
 * status, and again after the actions); returns the task then.
 */
async function finish(b: Sandbox, id: string, status: string, timeoutMs = 60_000) {
  try {
    await b.waitForStatus(id, status, timeoutMs);
    await new TaskStore(b.paths).withTaskLock('demo', id, async () => undefined);
    await b.waitFor(`the checkpoint to say ${status}`, async () => (await checkpoint(b, id)).state === status, 10_000);
    return await b.task(id);
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${await explain(b, id)}`);
  }
}

async function create(b: Sandbox, summary = 'fix the login crash'): Promise<string> {
  return b.createTask([`t-${Math.random().toString(36).slice(2, 8)}`, summary]);
}

const bugfix = (confidence = 0.9, cost = 0.01): Entry => ({ intent: 'bugfix', confidence, cost });

describe('pipeline workflow, end to end', () => {
  it('runs a confident task through every phase and verification to completed, recording the cost', async () => {
    box = await pipelineBox({ classify: [bugfix(0.9, 0.02)], reproduce: [{ cost: 0.03 }], fix: [{ cost: 0.04 }] }, { verify: [['git', 'status', '--short']] });
    const id = await create(box);
    const task = await finish(box, id, 'completed');
    expect(await statuses(box, id)).toEqual(['classifying', 'routing', 'executing', 'verifying', 'completed']);
    expect((await calls(box)).map((c) => `${c.phase}@${c.model}`)).toEqual(['classify@haiku', 'reproduce@haiku', 'fix@haiku']);
    // Each headless run asked the real CLI for its task while it ran.
    expect((await calls(box)).map((c) => c.seen)).toEqual(['classifying', 'executing', 'executing']);
    expect(task.meta.cost_total_usd).toBeCloseTo(0.09);
    expect(await checkpoint(box, id), await explain(box, id)).toMatchObject({ state: 'completed', intent: 'bugfix', confidence: 0.9, phases_done: ['reproduce', 'fix'], tier: 'haiku', cost_total_usd: 0.09 });
    const checks = (await box.history(id)).filter((e) => e.type === 'pipeline.check');
    expect(checks).toMatchObject([{ argv: ['git', 'status', '--short'], ok: true }]);
  }, 90_000);

  it('asks for clarification below the confidence threshold, and re-classifies with the answer', async () => {
    box = await pipelineBox({ classify: [bugfix(0.3), bugfix(0.8)] });
    const id = await create(box, 'it is broken');
    await finish(box, id, 'awaiting_clarification');
    const clarified = await box.orange(['task', 'clarify', id, 'the login form crashes on submit']);
    expect(clarified.code, clarified.stderr).toBe(0);
    await finish(box, id, 'completed');
    expect(await statuses(box, id)).toEqual(['classifying', 'awaiting_clarification', 'classifying', 'routing', 'executing', 'verifying', 'completed']);
    const classify = (await calls(box)).filter((c) => c.phase === 'classify');
    expect(classify[1]?.prompt).toContain('Clarification: the login form crashes on submit');
    expect((await box.task(id)).body).toContain('Clarification: the login form crashes on submit');
  }, 90_000);

  it('retries a failed phase at the same tier, then passes', async () => {
    box = await pipelineBox({ classify: [bugfix()], fix: [{ ok: false }, { ok: true }] });
    const id = await create(box);
    await finish(box, id, 'completed');
    expect(await statuses(box, id)).toEqual(['classifying', 'routing', 'executing', 'retrying', 'executing', 'verifying', 'completed']);
    expect((await calls(box)).filter((c) => c.phase === 'fix').map((c) => c.model)).toEqual(['haiku', 'haiku']);
    expect((await calls(box)).filter((c) => c.phase === 'fix')[1]?.prompt).toContain('fix failed on haiku');
  }, 90_000);

  it("gives every headless run, the classifier's included, the environment of its command line: $ORANGE_PROMPT, $ORANGE_STATUS, $ORANGE_PHASE, $ORANGE_MODEL", async () => {
    box = await pipelineBox({ classify: [bugfix()], fix: [{ ok: false }, { ok: true }] }, { attempts: 1, breaker: 10 });
    const id = await create(box);
    await finish(box, id, 'completed');
    const runs = await calls(box);
    expect(runs.map((c) => `${c.phase}@${c.model}`)).toEqual(['classify@haiku', 'reproduce@haiku', 'fix@haiku', 'fix@sonnet']);
    // The status is the one the run's own `orange task show` read, never the driver's (the one it was started in, classifying).
    for (const c of runs) expect(c.env, `${c.phase}@${c.model}`).toEqual({ prompt: c.prompt, status: c.seen, phase: c.phase, model: c.model });
    expect(runs.map((c) => c.env.status)).toEqual(['classifying', 'executing', 'executing', 'executing']);
    expect(runs[0]?.env.prompt).toContain('Classify this coding task by intent.');
    expect(runs[3]?.env.prompt).toContain('fix failed on haiku');
  }, 90_000);

  it('escalates haiku → sonnet → opus when failures use up each tier, then passes', async () => {
    box = await pipelineBox({ classify: [bugfix()], fix: [{ ok: false }, { ok: false }, { ok: true }] }, { attempts: 1, breaker: 10 });
    const id = await create(box);
    const task = await finish(box, id, 'completed');
    expect((await calls(box)).filter((c) => c.phase === 'fix').map((c) => c.model)).toEqual(['haiku', 'sonnet', 'opus']);
    expect(await statuses(box, id)).toEqual([
      'classifying', 'routing', 'executing', 'retrying', 'escalating', 'executing', 'retrying', 'escalating', 'executing', 'verifying', 'completed',
    ]);
    expect(task.meta.tier).toBe('opus');
  }, 90_000);

  it('ends failed with diagnostics when the top tier is used up', async () => {
    box = await pipelineBox({ classify: [bugfix()], fix: [{ ok: false }, { ok: false }, { ok: false }] }, { attempts: 1, breaker: 10 });
    const id = await create(box);
    const task = await finish(box, id, 'failed');
    expect((await statuses(box, id)).slice(-2)).toEqual(['escalating', 'failed']);
    expect(String(task.meta.last_failure)).toContain('fix failed on opus');
    expect((await box.history(id)).filter((e) => e.type === 'pipeline.notice')).toMatchObject([{ kind: 'exhausted' }]);
  }, 90_000);

  it('trips the circuit breaker after 3 consecutive failed runs and ends failed with diagnostics', async () => {
    box = await pipelineBox({ classify: [bugfix()], fix: [{ ok: false }, { ok: false }, { ok: false }, { ok: true }] }, { attempts: 2, breaker: 3 });
    const id = await create(box);
    const task = await finish(box, id, 'failed');
    expect((await statuses(box, id)).slice(-2)).toEqual(['retrying', 'failed']);
    expect((await calls(box)).filter((c) => c.phase === 'fix').map((c) => c.model)).toEqual(['haiku', 'haiku', 'sonnet']);
    expect(task.meta.consecutive_failures).toBe(3);
    expect((await box.history(id)).filter((e) => e.type === 'pipeline.notice')).toMatchObject([{ kind: 'breaker' }]);
    expect(await checkpoint(box, id)).toMatchObject({ state: 'failed', current_phase: 'fix', last_failure: expect.stringContaining('fix failed on sonnet') });
  }, 90_000);

  it('stops a task whose next run would start over budget, and resumes it after the budget is raised', async () => {
    box = await pipelineBox({ classify: [bugfix(0.9, 0.03)], reproduce: [{ cost: 0.03 }], fix: [{ cost: 0.01 }] }, { budgetUsd: 0.05 });
    const id = await create(box);
    const stopped = await finish(box, id, 'stopped');
    expect(String(stopped.meta.stop_reason)).toContain('budget exceeded');
    expect((await calls(box)).map((c) => c.phase)).toEqual(['classify', 'reproduce']);
    const refused = await box.orange(['task', 'resume', id]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/budget/);
    const resumed = await box.orange(['task', 'resume', id, '--budget', '1']);
    expect(resumed.code, resumed.stderr).toBe(0);
    const done = await finish(box, id, 'completed');
    expect((await calls(box)).map((c) => c.phase)).toEqual(['classify', 'reproduce', 'fix']);
    expect(done.meta.cost_total_usd).toBeCloseTo(0.07);
    expect(done.meta.budget_usd).toBe(1);
  }, 90_000);

  it('cancels mid-phase into stopped with a report, then resume re-runs that phase to completed', async () => {
    box = await pipelineBox({ classify: [bugfix(0.9, 0.02)], reproduce: [{ cost: 0.03 }], fix: ['hang', { cost: 0.01 }] });
    const id = await create(box);
    await box.waitFor('the fix phase to start', async () => (await calls(box!)).some((c) => c.phase === 'fix'));
    const cancel = await box.orange(['task', 'cancel', id, '--yes', '--json']);
    expect(cancel.code, cancel.stderr).toBe(0);
    const report = (JSON.parse(cancel.stdout) as { report: unknown }).report;
    expect(report).toEqual({ id, status: 'stopped', completed: ['reproduce'], in_progress: 'fix', cost_total_usd: 0.05, budget_usd: 5 });
    expect(await checkpoint(box, id)).toMatchObject({ state: 'stopped', current_phase: 'fix', phases_done: ['reproduce'] });
    const hung = (await calls(box)).find((c) => c.phase === 'fix')!;
    await box.waitFor('the hung agent to be gone', async () => !processAlive(hung.pid), 10_000);
    const resumed = await box.orange(['task', 'resume', id]);
    expect(resumed.code, resumed.stderr).toBe(0);
    const done = await finish(box, id, 'completed');
    expect((await calls(box)).map((c) => c.phase)).toEqual(['classify', 'reproduce', 'fix', 'fix']);
    expect(done.meta.cost_total_usd).toBeCloseTo(0.06);
  }, 90_000);

  it('resumes a task whose orange process and agent were SIGKILLed mid-phase, counting nothing twice', async () => {
    box = await pipelineBox({ classify: [bugfix(0.9, 0.02)], reproduce: [{ cost: 0.03 }], fix: ['hang', { cost: 0.01 }] });
    const id = await create(box);
    await killMidFix(box, id);
    expect((await box.task(id)).meta.status).toBe('executing');
    const resumed = await box.orange(['task', 'resume', id]);
    expect(resumed.code, resumed.stderr).toBe(0);
    const done = await finish(box, id, 'completed');
    expect((await calls(box)).map((c) => c.phase)).toEqual(['classify', 'reproduce', 'fix', 'fix']);
    expect(done.meta.cost_total_usd).toBeCloseTo(0.06);
  }, 90_000);

  it('respawn on a task whose driver was killed mid-phase resumes the driver (task list says so), never the harness', async () => {
    box = await pipelineBox({ classify: [bugfix(0.9, 0.02)], reproduce: [{ cost: 0.03 }], fix: ['hang', { cost: 0.01 }] });
    const id = await create(box);
    await killMidFix(box, id);
    const list = await box.orange(['task', 'list']);
    expect(list.stdout, list.stderr).toContain('✗ agent not running; start it again with orange task respawn <id> (a pipeline task: its driver resumes from the checkpoint, as with orange task resume <id>)');
    const respawned = await box.orange(['task', 'respawn', id]);
    expect(respawned.code, respawned.stderr).toBe(0);
    const done = await finish(box, id, 'completed');
    expect((await statuses(box, id)).slice(2)).toEqual(['executing', 'stopped', 'executing', 'verifying', 'completed']);
    expect((await calls(box)).map((c) => c.phase)).toEqual(['classify', 'reproduce', 'fix', 'fix']);
    expect(done.meta.cost_total_usd).toBeCloseTo(0.06);
    // Only the driver was ever started in the task's session (at creation and at the respawn), never the harness interactively.
    expect((await box.history(id)).filter((e) => e.type === 'agent.spawned').map((e) => e.harness)).toEqual(['pipeline-driver', 'pipeline-driver']);
  }, 90_000);

  it('resumes a task cancelled before it started (no worktree yet) to completed', async () => {
    box = await pipelineBox({ classify: [bugfix()] });
    const id = await box.createTask([`t-${Math.random().toString(36).slice(2, 8)}`, 'fix the login crash', '--no-spawn']);
    expect((await box.task(id)).meta).toMatchObject({ status: 'created', workspace: null });
    const cancel = await box.orange(['task', 'cancel', id, '--yes', '--json']);
    expect(cancel.code, cancel.stderr).toBe(0);
    expect((JSON.parse(cancel.stdout) as { report: unknown }).report).toMatchObject({ status: 'stopped', completed: [], in_progress: null });
    const resumed = await box.orange(['task', 'resume', id]);
    expect(resumed.code, resumed.stderr).toBe(0);
    await finish(box, id, 'completed');
    expect(await statuses(box, id)).toEqual(['stopped', 'classifying', 'routing', 'executing', 'verifying', 'completed']);
    // Acquired on resume (there was none), released on completion.
    expect((await box.history(id)).map((e) => e.type).filter((t) => t.startsWith('workspace.'))).toEqual(['workspace.acquired', 'workspace.released']);
    expect((await box.task(id)).meta.workspace).toBeNull();
  }, 90_000);

  it('trips the circuit breaker when every phase passes and the checks keep failing, with attempts to spare', async () => {
    const check = [process.execPath, '-e', "console.log('CHECK-MARKER: still red'); process.exit(1)"];
    box = await pipelineBox({ classify: [bugfix()] }, { verify: [check], attempts: 10, breaker: 3 });
    const id = await create(box);
    const task = await finish(box, id, 'failed');
    const round = ['executing', 'verifying', 'retrying'];
    expect(await statuses(box, id)).toEqual(['classifying', 'routing', ...round, ...round, ...round, 'failed']);
    const last = (await box.history(id)).filter((e) => e.type === 'status.changed').at(-1);
    expect(last).toMatchObject({ from: 'retrying', to: 'failed', reason: 'circuit breaker tripped' });
    expect(task.meta).toMatchObject({ consecutive_failures: 3, attempt: 3, tier: 'haiku' });
    expect(String(task.meta.last_failure)).toContain('CHECK-MARKER: still red');
    expect((await calls(box)).filter((c) => c.phase === 'fix').map((c) => c.model)).toEqual(['haiku', 'haiku', 'haiku']);
    expect((await box.history(id)).filter((e) => e.type === 'pipeline.notice')).toMatchObject([{ kind: 'breaker' }]);
  }, 90_000);

  it('resumes a task cancelled while classifying at classifying, which classifies it again', async () => {
    box = await pipelineBox({ classify: ['hang', bugfix(0.9, 0.02)] });
    const id = await create(box);
    await box.waitFor('the classifier to start', async () => (await calls(box!)).some((c) => c.phase === 'classify'));
    const cancel = await box.orange(['task', 'cancel', id, '--yes', '--json']);
    expect(cancel.code, cancel.stderr).toBe(0);
    expect((JSON.parse(cancel.stdout) as { report: unknown }).report).toMatchObject({ completed: [], in_progress: 'classify', cost_total_usd: 0 });
    expect((await box.task(id)).meta.stop_reason).toBe('cancelled');
    const hung = (await calls(box)).find((c) => c.phase === 'classify')!;
    await box.waitFor('the hung classifier to be gone', async () => !processAlive(hung.pid), 10_000);
    const resumed = await box.orange(['task', 'resume', id]);
    expect(resumed.code, resumed.stderr).toBe(0);
    const done = await finish(box, id, 'completed');
    expect(await statuses(box, id)).toEqual(['classifying', 'stopped', 'classifying', 'routing', 'executing', 'verifying', 'completed']);
    expect((await calls(box)).map((c) => c.phase)).toEqual(['classify', 'classify', 'reproduce', 'fix']);
    expect(done.meta).toMatchObject({ intent: 'bugfix', stop_reason: '' });
  }, 90_000);

  it('resumes a task cancelled while verifying at verifying (no phase runs again), after a report that says so', async () => {
    const mark = join(tmpdir(), `orange-check-${process.pid}-${Math.random().toString(36).slice(2, 8)}`);
    // The first run of the check hangs (it is killed by the cancel); the second passes.
    const check = [process.execPath, '-e', `const fs = require('fs'); if (fs.existsSync(${JSON.stringify(mark)})) { console.log('checked'); } else { fs.writeFileSync(${JSON.stringify(mark)}, String(process.pid)); setInterval(() => {}, 1000); }`];
    box = await pipelineBox({ classify: [bugfix(0.9, 0.02)], reproduce: [{ cost: 0.03 }], fix: [{ cost: 0.01 }] }, { verify: [check] });
    try {
      const id = await create(box);
      await box.waitFor('the check to start', async () => existsSync(mark) && (await readFile(mark, 'utf8')) !== '');
      const cancel = await box.orange(['task', 'cancel', id, '--yes']);
      expect(cancel.code, cancel.stderr).toBe(0);
      expect(cancel.stdout.split('\n')).toEqual([
        `task ${id}: verifying → stopped`,
        `Stopped task ${id}; its checkpoint is kept (resume with: orange task resume ${id})`,
        'Completed: reproduce, fix',
        'In progress: verification',
        'Cost so far: $0.0600 of a $5.00 budget',
      ]);
      const pid = Number(await readFile(mark, 'utf8'));
      await box.waitFor('the hung check to be gone', async () => !processAlive(pid), 10_000);
      const resumed = await box.orange(['task', 'resume', id]);
      expect(resumed.code, resumed.stderr).toBe(0);
      await finish(box, id, 'completed');
      expect(await statuses(box, id)).toEqual(['classifying', 'routing', 'executing', 'verifying', 'stopped', 'verifying', 'completed']);
      expect((await calls(box)).map((c) => c.phase)).toEqual(['classify', 'reproduce', 'fix']);
      const checks = (await box.history(id)).filter((e) => e.type === 'pipeline.check');
      expect(checks).toMatchObject([{ ok: true, log: expect.stringMatching(/^runs\/.*-check-1\.log$/) }]);
      expect(await readFile(join(box.paths.taskDir('demo', id), String(checks[0]?.log)), 'utf8')).toContain('checked');
    } finally {
      await rm(mark, { force: true });
    }
  }, 90_000);

  it('abandons a stopped task: cancel again ends it failed, frees its worktree, keeps its checkpoint, and then it can be deleted', async () => {
    box = await pipelineBox({ classify: [bugfix()], reproduce: ['hang'] });
    const id = await create(box);
    await box.waitFor('the reproduce phase to start', async () => (await calls(box!)).some((c) => c.phase === 'reproduce'));
    const workspace = (await box.task(id)).meta.workspace;
    expect(workspace).toBeTruthy();
    expect((await box.orange(['task', 'cancel', id, '--yes'])).code).toBe(0);
    const refused = await box.orange(['task', 'delete', id, '--yes']);
    expect(refused.stderr).toMatch(/only a finished task .* cancel it first/);
    const abandon = await box.orange(['task', 'cancel', id, '--yes', '--json']);
    expect(abandon.code, abandon.stderr).toBe(0);
    expect(JSON.parse(abandon.stdout)).toMatchObject({ from: 'stopped', to: 'failed', failedHooks: [], abandoned: { checkpoint: join(box.paths.taskDir('demo', id), 'checkpoint.json') } });
    expect((await box.task(id)).meta).toMatchObject({ status: 'failed', workspace: null });
    const pool = JSON.parse((await box.orange(['workspace', 'list', '--json'])).stdout) as { workspaces: Array<{ path: string; task: string | null }> };
    expect(pool.workspaces.find((w) => w.path === workspace)?.task).toBeNull();
    expect(await checkpoint(box, id)).toMatchObject({ state: 'failed', current_phase: 'reproduce' });
    const deleted = await box.orange(['task', 'delete', id, '--yes']);
    expect(deleted.code, deleted.stderr).toBe(0);
  }, 90_000);

  it('feeds a failed verification into the retried phase prompt', async () => {
    const check = [process.execPath, '-e', "if (!require('fs').existsSync('fixed.txt')) { console.log('CHECK-MARKER: fixed.txt is missing'); process.exit(1) }"];
    box = await pipelineBox({ classify: [bugfix()], fix: [{ ok: true }, { ok: true, write: 'fixed.txt' }] }, { verify: [check] });
    const id = await create(box);
    await finish(box, id, 'completed');
    expect(await statuses(box, id)).toEqual(['classifying', 'routing', 'executing', 'verifying', 'retrying', 'executing', 'verifying', 'completed']);
    const fixes = (await calls(box)).filter((c) => c.phase === 'fix');
    expect(fixes[0]?.prompt).not.toContain('CHECK-MARKER');
    expect(fixes[1]?.prompt).toContain('CHECK-MARKER: fixed.txt is missing');
  }, 90_000);
});

/** SIGKILLs the driver and its agent once the `fix` phase runs, as a machine restart would, and waits until they are gone. */
async function killMidFix(b: Sandbox, id: string): Promise<void> {
  await b.waitFor('the fix phase to start', async () => (await calls(b)).some((c) => c.phase === 'fix'));
  const hung = (await calls(b)).find((c) => c.phase === 'fix')!;
  const driver = await execa('pgrep', ['-f', `pipeline run --project demo --task ${id}( |$)`], { reject: false });
  const pids = [...String(driver.stdout).split('\n').filter(Boolean).map(Number), hung.pid];
  expect(pids.length, 'the driver process').toBeGreaterThan(1);
  // pgrep also matches a short-lived process naming the driver (a tmux client starting its window)
  // that may end before this kill: gone already is what the kill is for.
  for (const pid of pids) signalProcess(pid);
  await b.waitFor('the killed processes to be gone', async () => pids.every((p) => !processAlive(p)), 10_000);
}
