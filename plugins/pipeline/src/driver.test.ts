import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { definePlugin, type HeadlessRequest, type HeadlessRunner, type Orange, type OrangePlugin, type TaskMeta, type TaskRef } from '@orange/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { pipelineBox, type Plan, type PipelineBox } from '../test/pipeline-box.js';
import { runPipeline } from './driver.js';
import type { PipelineOptions } from './options.js';

// The driver run in this process on a task the engine started (start_pipeline's spawn_agent is a
// stand-in here): its decisions, what it writes, what it notifies. Runs really start `true`;
// checks really run.

let box: PipelineBox | undefined;
afterEach(async () => {
  await box?.cleanup();
  box = undefined;
});

const FAIL = [process.execPath, '-e', "console.log('CHECK says: 2 failing'); process.exit(1)"];
const PASS = [process.execPath, '-e', "console.log('CHECK says: all green')"];

async function drive(options: PipelineOptions, plan: Plan, extra: Parameters<typeof pipelineBox>[2] = []): Promise<{ b: PipelineBox; ref: TaskRef }> {
  const b = await pipelineBox({ intents: { bugfix: { phases: ['reproduce', 'fix'] } }, ...options }, { classify: [{ data: { intent: 'bugfix', confidence: 0.9 } }], ...plan }, extra);
  box = b;
  const ref = await b.task();
  await b.to(ref, 'classifying');
  await runPipeline(b.orange, ref);
  await b.orange.notifications.settle();
  return { b, ref };
}

/** A plugin that runs `argv` (given the task) in place of every headless run's command, keeping its environment. */
function runInstead(argv: (meta: TaskMeta, orange: Orange) => string[]): OrangePlugin {
  return definePlugin({
    name: 'run-instead',
    apply(orange) {
      orange.hooks.agentCommand.tap('run-instead', (command, event) => ({ ...command, argv: argv(event.task.meta, event.orange) }));
    },
  });
}

async function moves(b: PipelineBox, ref: TaskRef): Promise<string[]> {
  return (await b.orange.store.history(ref.project, ref.id)).filter((e) => e.type === 'status.changed').map((e) => String(e.to));
}

/**
 * A started task whose one phase fails three times in a row (the breaker's length), in a box
 * that delivers like the driver's own one-shot CLI process: notifications wait in the outbox.
 */
async function breakerInOutbox(): Promise<{ b: PipelineBox; ref: TaskRef }> {
  const plan: Plan = { classify: [{ data: { intent: 'bugfix', confidence: 0.9 } }], fix: [{ ok: false }, { ok: false }, { ok: false }] };
  const b = await pipelineBox({ intents: { bugfix: { phases: ['fix'] } }, attempts: 2, breaker: 3 }, plan, [], 'outbox');
  box = b;
  const ref = await b.task();
  await b.to(ref, 'classifying');
  return { b, ref };
}

describe('the pipeline driver', () => {
  it('trips the breaker on phases that pass while the checks keep failing, however many attempts are left', async () => {
    const { b, ref } = await drive({ attempts: 10, breaker: 3, verify: [FAIL] }, {});
    const meta = await b.meta(ref);
    expect(meta).toMatchObject({ status: 'failed', consecutive_failures: 3, attempt: 3, tier: 'small' });
    expect(String(meta.last_failure)).toContain('CHECK says: 2 failing');
    expect(b.runs).toEqual(['classify@small', 'reproduce@small', 'fix@small', 'fix@small', 'fix@small']);
    const round = ['executing', 'verifying', 'retrying'];
    expect(await moves(b, ref)).toEqual(['classifying', 'routing', ...round, ...round, ...round, 'failed']);
    const last = (await b.orange.store.history(ref.project, ref.id)).filter((e) => e.type === 'status.changed').at(-1);
    expect(last).toMatchObject({ from: 'retrying', to: 'failed', reason: 'circuit breaker tripped' });
  });

  it('raises one urgent pipeline.breaker notification carrying the diagnostics, and no status one for failed', async () => {
    const { b, ref } = await drive({ attempts: 2, breaker: 3 }, { fix: [{ ok: false }, { ok: false }, { ok: false, output: 'fix failed: null pointer' }] });
    expect((await b.meta(ref)).status).toBe('failed');
    const urgent = b.notified.filter((n) => n.priority === 'urgent');
    expect(urgent).toEqual([
      expect.objectContaining({
        event: 'pipeline.breaker',
        title: 'Circuit breaker tripped: fix it',
        reason: expect.stringMatching(/^circuit breaker tripped: 3 consecutive failed runs; last failure: phase fix \(tier big, attempt 1\): fix failed: null pointer/),
        from: 'retrying',
        to: 'failed',
        task: expect.objectContaining({ id: ref.id, status: 'failed' }),
      }),
    ]);
    expect(b.notified.filter((n) => n.event === 'status.changed' && n.to === 'failed')).toEqual([]);
  });

  it('raises urgent pipeline.exhausted at the top tier, and a warning pipeline.budget instead of the status one for stopped', async () => {
    const exhausted = await drive({ attempts: 1, breaker: 10 }, { fix: [{ ok: false }, { ok: false }] });
    expect(exhausted.b.notified.map((n) => [n.event, n.priority, n.to])).toEqual([['pipeline.exhausted', 'urgent', 'failed']]);
    expect(exhausted.b.notified[0]?.reason).toMatch(/^retries used up at the top tier big; last failure: phase fix \(tier big/);
    await exhausted.b.cleanup();
    const budget = await drive({ budgetUsd: 0.02 }, { reproduce: [{ costUsd: 0.05 }] });
    expect(budget.b.notified.map((n) => [n.event, n.priority, n.from, n.to, n.reason])).toEqual([
      ['pipeline.budget', 'warning', 'executing', 'stopped', 'budget exceeded: cost $0.06 of a $0.02 budget'],
    ]);
    expect(await budget.b.meta(budget.ref)).toMatchObject({ status: 'stopped', stop_reason: 'budget exceeded: cost $0.06 of a $0.02 budget' });
  });

  it('puts the breaker notice in the outbox before the move: a driver killed between the two (the status write throws) is still heard', async () => {
    const { b, ref } = await breakerInOutbox();
    const store = b.orange.store;
    const update = store.update.bind(store);
    vi.spyOn(store, 'update').mockImplementation(async (project, id, patch, body) => {
      if (patch.status === 'failed') throw new Error('driver killed before the status was written');
      return update(project, id, patch, body);
    });
    await expect(runPipeline(b.orange, ref)).rejects.toThrow('driver killed before the status was written');
    await b.orange.notifications.settle();
    vi.restoreAllMocks();
    expect((await b.meta(ref)).status).toBe('retrying');
    const history = await store.history(ref.project, ref.id);
    expect(history.filter((e) => e.type === 'pipeline.notice')).toEqual([expect.objectContaining({ kind: 'breaker' })]);
    expect(history.filter((e) => e.type === 'status.changed' && e.to === 'failed')).toEqual([]);
    expect(b.notified).toEqual([]);
    // What a deliverer, or the monitor's next pass, finds there.
    expect(await b.orange.notifications.deliverOutbox()).toBe(1);
    expect(b.notified.map((n) => [n.event, n.priority, n.from, n.to, n.task.status])).toEqual([['pipeline.breaker', 'urgent', 'retrying', 'failed', 'failed']]);
  });

  it('with nothing killed, the outbox holds the notice once, beside its move, and no status notification for failed', async () => {
    const { b, ref } = await breakerInOutbox();
    await runPipeline(b.orange, ref);
    await b.orange.notifications.settle();
    expect((await b.meta(ref)).status).toBe('failed');
    expect(b.notified).toEqual([]);
    await b.orange.notifications.deliverOutbox();
    expect(b.notified.map((n) => [n.event, n.from, n.to])).toEqual([['pipeline.breaker', 'retrying', 'failed']]);
  });

  it("lets a team's classify tap replace the classifier agent", async () => {
    const rules = definePlugin({
      name: 'team-rules',
      apply: (orange) => orange.hooks.classify.tapPromise('team-rules', async ({ task, intents }) => (task.meta.summary.includes('fix') && intents.includes('bugfix') ? { intent: 'bugfix', confidence: 0.99, costUsd: 0 } : undefined)),
    });
    const { b, ref } = await drive({}, {}, [rules]);
    expect(b.runs).toEqual(['reproduce@small', 'fix@small']);
    expect(await b.meta(ref)).toMatchObject({ status: 'completed', intent: 'bugfix', confidence: 0.99, cost_total_usd: 0.02 });
    expect((await b.orange.store.history(ref.project, ref.id)).filter((e) => e.type === 'pipeline.classified')).toMatchObject([{ intent: 'bugfix', confidence: 0.99 }]);
  });

  it('keeps the output of passing checks too, and names its file in the pipeline.check event', async () => {
    const { b, ref } = await drive({ verify: [PASS, PASS] }, {});
    expect((await b.meta(ref)).status).toBe('completed');
    const checks = (await b.orange.store.history(ref.project, ref.id)).filter((e) => e.type === 'pipeline.check');
    expect(checks).toMatchObject([
      { ok: true, exit_code: 0, log: expect.stringMatching(/^runs\/.*-check-1\.log$/) },
      { ok: true, exit_code: 0, log: expect.stringMatching(/^runs\/.*-check-2\.log$/) },
    ]);
    const text = await readFile(join(b.orange.paths.taskDir(ref.project, ref.id), String(checks[0]?.log)), 'utf8');
    expect(text).toContain('(exit 0)');
    expect(text).toContain('CHECK says: all green');
  });

  it("has each run write its result file in the task's agent folder, reads it, removes it, and keeps the run's log in runs/", async () => {
    const write = "require('fs').writeFileSync(process.env.ORANGE_RESULT_FILE, JSON.stringify({ phase: process.env.ORANGE_PHASE }))";
    const { b, ref } = await drive({}, {}, [runInstead(() => [process.execPath, '-e', write])]);
    expect((await b.meta(ref)).status).toBe('completed');
    const agentDir = b.orange.paths.agentDir(ref.project, ref.id);
    const phases = ['classify', 'reproduce', 'fix'];
    expect(b.resultFiles.map((r) => dirname(r.path))).toEqual(phases.map(() => agentDir));
    expect(b.resultFiles.map((r) => r.text)).toEqual(phases.map((phase) => JSON.stringify({ phase })));
    expect(await readdir(agentDir)).toEqual(['TASK.md']);
    const logs = (await b.orange.store.history(ref.project, ref.id)).filter((e) => e.type === 'pipeline.run').map((e) => String(e.log));
    expect(logs).toHaveLength(3);
    for (const log of logs) expect(existsSync(join(b.orange.paths.taskDir(ref.project, ref.id), log))).toBe(true);
  });

  it("gives every run, the classifier included, its own prompt, status, phase, model and result file in $ORANGE_*, never the driver's", async () => {
    // What the driver has: it runs as the task's agent, started with a generic prompt in the status of its start.
    const driverEnv = { ORANGE_PROMPT: 'Read TASK.md and continue', ORANGE_STATUS: 'created', ORANGE_PHASE: 'stale', ORANGE_MODEL: 'stale' };
    const saved = Object.fromEntries(Object.keys(driverEnv).map((k) => [k, process.env[k]]));
    Object.assign(process.env, driverEnv);
    try {
      const record = "const e = process.env; require('fs').writeFileSync(e.ORANGE_RESULT_FILE, JSON.stringify([e.ORANGE_PROMPT, e.ORANGE_STATUS, e.ORANGE_PHASE, e.ORANGE_MODEL, e.ORANGE_RESULT_FILE]))";
      const plan: Plan = { classify: [{ data: { intent: 'bugfix', confidence: 0.9 } }], fix: [{ ok: false, output: 'fix failed: 2 tests fail' }] };
      box = await pipelineBox({ intents: { bugfix: { phases: ['reproduce', 'fix'] } }, attempts: 1 }, plan, [runInstead(() => [process.execPath, '-e', record])]);
      const requests: HeadlessRequest[] = [];
      const headless = box.orange.harnesses.get('h')?.headless as { command: HeadlessRunner['command'] };
      const command = headless.command;
      headless.command = (request) => {
        requests.push(request);
        return command(request);
      };
      const ref = await box.task();
      await box.to(ref, 'classifying');
      await runPipeline(box.orange, ref);
      expect((await box.meta(ref)).status).toBe('completed');
      expect(box.runs).toEqual(['classify@small', 'reproduce@small', 'fix@small', 'fix@big']);
      const seen = box.resultFiles.map((r) => JSON.parse(String(r.text)) as string[]);
      expect(seen).toEqual(requests.map((r) => [r.prompt, r.task.status, r.phase, r.model ?? '', r.resultFile]));
      expect(seen.map(([, status]) => status)).toEqual(['classifying', 'executing', 'executing', 'executing']);
      expect(seen[0]?.[0]).toContain('Classify this coding task by intent.');
      expect(seen[3]?.[0]).toContain('fix failed: 2 tests fail');
    } finally {
      for (const [key, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
  });

  it('reads no result file the agent made a symlink (to Orange state) or a FIFO, and removes it', async () => {
    const plant = `const f = process.env.ORANGE_RESULT_FILE;
      if (process.env.ORANGE_PHASE === 'fix') require('child_process').execFileSync('mkfifo', [f]);
      else require('fs').symlinkSync(process.argv[1], f);`;
    const { b, ref } = await drive({}, {}, [runInstead((meta, orange) => [process.execPath, '-e', plant, orange.paths.taskStateFile(meta.project, meta.id)])]);
    expect((await b.meta(ref)).status).toBe('completed');
    expect(b.resultFiles.map((r) => r.text)).toEqual([null, null, null]);
    expect(await readdir(b.orange.paths.agentDir(ref.project, ref.id))).toEqual(['TASK.md']);
  });

  it('logs each run the harness cannot price while a budget is in force: it counts $0', async () => {
    box = await pipelineBox({ intents: { docs: { phases: ['write'] } } }, { classify: [{ data: { intent: 'docs', confidence: 0.9 } }] });
    const headless = box.orange.harnesses.get('h')?.headless as { canPrice?: HeadlessRunner['canPrice'] };
    headless.canPrice = () => false;
    const ref = await box.task();
    await box.to(ref, 'classifying');
    await runPipeline(box.orange, ref);
    const lines = (await readFile(box.orange.paths.logFile, 'utf8')).split('\n').filter((l) => l.includes('counts $0 against the budget'));
    expect(lines.map((l) => JSON.parse(l) as Record<string, unknown>)).toMatchObject([
      { level: 'warn', msg: 'run counts $0 against the budget: the harness has no price for its model', harness: 'h', model: 'small', phase: 'classify' },
      { level: 'warn', harness: 'h', model: 'small', phase: 'write' },
    ]);
  });

  it("counts every run's cost when an edit of a sealed field (budget_usd) stopped the driver mid-run and a person repaired the task", async () => {
    let tampered = '';
    const plan: Plan = {
      classify: [{ data: { intent: 'bugfix', confidence: 0.9 }, costUsd: 0.05 }],
      reproduce: [{ costUsd: 0.06, during: () => writeFileSync(tampered, readFileSync(tampered, 'utf8').replace(/^budget_usd: .*$/m, 'budget_usd: 100')) }],
      fix: [{ costUsd: 0.07 }],
    };
    box = await pipelineBox({ intents: { bugfix: { phases: ['reproduce', 'fix'] } } }, plan);
    const ref = await box.task();
    tampered = box.orange.paths.taskFile(ref.project, ref.id);
    await box.to(ref, 'classifying');
    await expect(runPipeline(box.orange, ref)).rejects.toMatchObject({ code: 'E_TAMPERED' });
    expect((await box.orange.engine.repair(ref)).fields).toEqual(['budget_usd']);
    await runPipeline(box.orange, ref);
    const meta = await box.meta(ref);
    const runs = (await box.orange.store.history(ref.project, ref.id)).filter((e) => e.type === 'pipeline.run').map((e) => e.cost_usd);
    // The reproduce run whose result was never recorded ran again: both were paid for.
    expect(box.runs).toEqual(['classify@small', 'reproduce@small', 'reproduce@small', 'fix@small']);
    expect(runs).toEqual([0.05, 0.06, 0.01, 0.07]);
    expect(meta).toMatchObject({ status: 'completed', budget_usd: 5, cost_total_usd: 0.19 });
  });
});
