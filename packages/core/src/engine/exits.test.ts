/**
 * What happens when an agent is gone (exits.ts): `agentExited` for an exit the runtime reported
 * (or the poll saw) with a spawn recorded, `agentMissing` for an active task whose responsible
 * agent runs nowhere and none is recorded. Each case checks the outcome the monitor reports, what
 * is left in TASK.md and the ledger, which actions ran, and the log lines a person reads.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { logRecords, sandbox, taskIn, type Sandbox } from '../../test/fixtures.js';
import type { OrangePlugin, Runtime, TaskRef } from '../plugin/index.js';
import type { AgentRole, TaskMeta } from '../task/index.js';
import { defaultWorkflow } from '../workflow/default.js';

const PLAN = '## Plan\n\nAPPROACH: split the parser\nTOUCHING: parser.ts\n';
const HANDOFF = '## Handoff\n\nDONE: parser split\n';
const NO_VERDICT = '## Review\n\nstill reading\n';
const TAMPERED_REASON = 'TASK.md was edited by hand (tampered); repair it first';
const START_ERROR = 'tmux new-session failed: server exited unexpectedly';

/** What an agent-starting action saw of the move it ran for. */
interface SeenMove {
  readonly action: string;
  readonly from: string | null;
  readonly to: string;
  readonly cause: string;
  readonly reason?: string;
}

/** The test's handles on the fake runtime and the start actions. */
interface World {
  /** `<task id>:<role>` of every agent the runtime reports alive. */
  readonly alive: Set<string>;
  /** Start actions that throw (before the recording tap runs), as a tmux failure would. */
  readonly failing: Set<string>;
  /** Every run of spawn_agent / spawn_reviewer, in order, as the action saw it. */
  readonly moves: SeenMove[];
  /** Runs inside each snapshot: between the exit handling's first read and its tamper check. */
  duringSnapshot: () => Promise<void>;
}

function world(): World {
  return { alive: new Set(), failing: new Set(), moves: [], duringSnapshot: async () => {} };
}

/** A runtime whose agents are alive only while listed in `w.alive`. */
function fakeRuntime(w: World): OrangePlugin {
  const runtime: Runtime = {
    name: 'fake',
    snapshot: async () => {
      await w.duringSnapshot();
      return { isAlive: (task, role) => w.alive.has(`${task.id}:${role}`), sessions: [], processes: 0 };
    },
    attach: async () => undefined,
    sessionName: (task) => `${task.project}/${task.id}`,
    killSession: async () => true,
  };
  return { name: 'fake-runtime', apply: (orange) => orange.provide('runtime', runtime) };
}

/** Observes the agent-starting actions, and makes those in `w.failing` throw. */
function startActions(w: World): OrangePlugin {
  return {
    name: 'start-actions',
    apply(orange) {
      for (const action of ['spawn_agent', 'spawn_reviewer']) {
        orange.hooks.actions.for(action).tapPromise({ name: 'start-actions', stage: -10 }, async (ctx) => {
          w.moves.push({ action, from: ctx.from, to: ctx.to, cause: ctx.cause, ...(ctx.reason === undefined ? {} : { reason: ctx.reason }) });
          if (w.failing.has(action)) throw new Error(START_ERROR);
        });
      }
    },
  };
}

/** A plugin vetoing every move the exit rules make. */
const pause: OrangePlugin = {
  name: 'pause',
  apply(orange) {
    orange.hooks.beforeTransition.tapPromise('pause', async (e) => (e.cause === 'auto' || e.cause === 'crash' ? 'auto-advance is paused' : undefined));
  },
};

let box: Sandbox;
let w: World;
afterEach(async () => box?.cleanup());

async function setUp(config: Record<string, unknown> = {}, extra: OrangePlugin[] = []): Promise<void> {
  w = world();
  box = await sandbox(config, [fakeRuntime(w), startActions(w), ...extra]);
}

async function history(ref: TaskRef) {
  return box.orange.store.history(ref.project, ref.id);
}

async function historyTypes(ref: TaskRef): Promise<string[]> {
  return (await history(ref)).map((e) => e.type);
}

const logged = (msg: string) => logRecords(box, msg);

/** Changes TASK.md's status line by hand, as a person (or an agent) editing the file would. */
async function forgeStatus(ref: TaskRef, from: string, to: string): Promise<() => Promise<void>> {
  const file = box.orange.paths.taskFile(ref.project, ref.id);
  const original = await readFile(file, 'utf8');
  await writeFile(file, original.replace(`status: ${from}`, `status: ${to}`));
  return () => writeFile(file, original);
}

/** The ledger a failed start leaves: the task entered `status`, and a start action failed there. */
async function failedStart(status: string, hook: string, meta: Partial<TaskMeta> = {}, restarts = 0): Promise<TaskRef> {
  const ref = await taskIn(box, status, { meta });
  await box.orange.store.appendHistory(ref.project, ref.id, { type: 'hook.failed', hook, from: status, to: status, error: START_ERROR });
  for (let attempt = 1; attempt <= restarts; attempt++) {
    await box.orange.store.appendHistory(ref.project, ref.id, { type: 'agent.restarted', role: hook === 'spawn_reviewer' ? 'reviewer' : 'worker', attempt, reason: 'earlier' });
  }
  return ref;
}

describe('agentExited', () => {
  it('ignores a report about a spawn already cleared or replaced, saying it was handled', async () => {
    await setUp();
    const cleared = await taskIn(box, 'working', { body: HANDOFF });
    const replaced = await taskIn(box, 'working', { body: HANDOFF, meta: { worker_spawn: 'w2' } });
    for (const [ref, spawn] of [
      [cleared, null],
      [replaced, 'w1'],
    ] as const) {
      const outcome = await box.orange.engine.agentExited(ref, 'worker', spawn, 'exit');
      expect(outcome.decision).toEqual({ kind: 'ignore', reason: 'this agent exit was already handled' });
      expect(await historyTypes(ref)).toEqual(['task.created']);
    }
    expect((await box.orange.store.read(replaced.project, replaced.id)).meta.worker_spawn).toBe('w2');
  });

  it('leaves a task whose TASK.md was edited by hand alone, spawn and all, until it is repaired', async () => {
    await setUp();
    const ref = await taskIn(box, 'working', { body: HANDOFF, meta: { worker_spawn: 'w1' } });
    const restore = await forgeStatus(ref, 'working', 'planning');

    const outcome = await box.orange.engine.agentExited(ref, 'worker', 'w1', 'exit');
    expect(outcome.decision).toEqual({ kind: 'ignore', reason: TAMPERED_REASON });
    expect(outcome.task.meta.id).toBe(ref.id);
    expect(await historyTypes(ref)).toEqual(['task.created']);
    expect(await logged('exit ignored: TASK.md was edited by hand')).toEqual([
      expect.objectContaining({ level: 'warn', task: ref.id, error: expect.stringContaining(`task ${ref.id}: TASK.md was edited by hand: status "planning"`) }),
    ]);

    // Nothing was cleared: the same report is handled once TASK.md is repaired.
    await restore();
    const handled = await box.orange.engine.agentExited(ref, 'worker', 'w1', 'exit');
    expect(handled.decision).toMatchObject({ kind: 'advance', to: 'agent-review' });
    expect(handled.task.meta).toMatchObject({ status: 'agent-review', worker_spawn: null });
  });

  it('clears the spawn and records the exit even when the exit rule ignores it (an agent not responsible for the status)', async () => {
    await setUp();
    const ref = await taskIn(box, 'working', { meta: { reviewer_spawn: 'r1', worker_spawn: 'w1' } });
    const outcome = await box.orange.engine.agentExited(ref, 'reviewer', 'r1', 'exit');
    expect(outcome.decision).toEqual({ kind: 'ignore', reason: 'the reviewer exited while worker is responsible for working' });
    expect(outcome.task.meta).toMatchObject({ status: 'working', reviewer_spawn: null, worker_spawn: 'w1', crash_count: 0 });
    expect(await historyTypes(ref)).toEqual(['task.created', 'agent.exited']);
    expect(await logged('agent exited')).toEqual([
      expect.objectContaining({ level: 'info', task: ref.id, role: 'reviewer', source: 'exit', decision: 'ignore', reason: 'the reviewer exited while worker is responsible for working' }),
    ]);
  });

  it('counts a crash without starting the worker again where the exit rule does not respawn', async () => {
    await setUp();
    const ref = await taskIn(box, 'working', { meta: { worker_spawn: 'w1' } });
    const outcome = await box.orange.engine.agentExited(ref, 'worker', 'w1', 'manual');
    expect(outcome.decision).toEqual({ kind: 'crash', crashCount: 1, respawn: false, reason: 'process exited without its artifact (TASK.md has no ## Handoff section)' });
    expect(outcome.task.meta).toMatchObject({ status: 'working', crash_count: 1, worker_spawn: null, attention: null });
    expect(box.calls).toEqual([]);
    expect(w.moves).toEqual([]);
    expect((await history(ref)).at(-1)).toMatchObject({ type: 'agent.crashed', status: 'working', crash_count: 1, role: 'worker', reason: outcome.decision.reason });
  });

  it('starts the worker again in the same status where the exit rule respawns it', async () => {
    const respawning = {
      ...defaultWorkflow,
      name: 'respawning',
      exit: { ...defaultWorkflow.exit, working: { advance: ['agent-review'], otherwise: 'crash', crashTo: 'stuck', respawn: true } },
    };
    await setUp({ workflow: respawning });
    const ref = await taskIn(box, 'working', { meta: { worker_spawn: 'w0' } });
    const outcome = await box.orange.engine.agentExited(ref, 'worker', 'w0', 'exit');
    expect(outcome.decision).toMatchObject({ kind: 'crash', crashCount: 1, respawn: true });
    expect(box.calls).toEqual(['spawn_agent']);
    expect(w.moves).toEqual([{ action: 'spawn_agent', from: 'working', to: 'working', cause: 'respawn' }]);
    expect(outcome.task.meta).toMatchObject({ status: 'working', worker_spawn: 'w1', attention: null });
  });

  it('starts the reviewer again after its crash, as a respawn within agent-review', async () => {
    await setUp();
    const ref = await taskIn(box, 'agent-review', { body: HANDOFF + NO_VERDICT, meta: { review_round: 1, reviewer_spawn: 'r1', worker_spawn: 'w1' } });
    const outcome = await box.orange.engine.agentExited(ref, 'reviewer', 'r1', 'exit');
    expect(outcome.decision).toMatchObject({ kind: 'crash', crashCount: 1, respawn: true });
    expect(box.calls).toEqual(['spawn_reviewer']);
    expect(w.moves).toEqual([{ action: 'spawn_reviewer', from: 'agent-review', to: 'agent-review', cause: 'respawn' }]);
    expect(outcome.task.meta).toMatchObject({ reviewer_spawn: 'r1', worker_spawn: 'w1', attention: null });
  });

  it('flags the task for attention when the respawn after a crash fails', async () => {
    await setUp();
    w.failing.add('spawn_reviewer');
    const ref = await taskIn(box, 'agent-review', { body: HANDOFF + NO_VERDICT, meta: { review_round: 1, reviewer_spawn: 'r1' } });
    const outcome = await box.orange.engine.agentExited(ref, 'reviewer', 'r1', 'exit');
    expect(outcome.decision.kind).toBe('crash');
    expect(outcome.task.meta).toMatchObject({ status: 'agent-review', crash_count: 1, reviewer_spawn: null, attention: 'hook failed: spawn_reviewer' });
    expect((await box.orange.store.read(ref.project, ref.id)).meta.attention).toBe('hook failed: spawn_reviewer');
  });

  it('flags the task and records auto.refused when a plugin vetoes the exit rule’s move, leaving the status', async () => {
    await setUp({}, [pause]);
    const ref = await taskIn(box, 'planning', { body: PLAN, meta: { worker_spawn: 'w1' } });
    const outcome = await box.orange.engine.agentExited(ref, 'worker', 'w1', 'exit');
    const refusal = 'planning → working refused: auto-advance is paused';
    expect(outcome.decision).toEqual({ kind: 'advance', to: 'working', reason: 'worker exited; gate plan passed' });
    expect(outcome.task.meta).toMatchObject({ status: 'planning', worker_spawn: null, attention: `exit rule refused: ${refusal}` });
    expect((await box.orange.store.read(ref.project, ref.id)).meta.attention).toBe(`exit rule refused: ${refusal}`);
    expect((await history(ref)).at(-1)).toEqual({ type: 'auto.refused', from: 'planning', to: 'working', code: 'E_VETOED', reason: refusal, timestamp: expect.any(String) });
    expect(await logged('exit rule transition refused')).toEqual([
      expect.objectContaining({ level: 'warn', task: ref.id, from: 'planning', to: 'working', reason: refusal }),
    ]);
  });

  it('flags the task too when the crash limit’s move to stuck is vetoed', async () => {
    await setUp({}, [pause]);
    const ref = await taskIn(box, 'working', { meta: { worker_spawn: 'w1', crash_count: 1 } });
    const outcome = await box.orange.engine.agentExited(ref, 'worker', 'w1', 'exit');
    expect(outcome.decision).toMatchObject({ kind: 'escalate', to: 'stuck', crashCount: 2 });
    expect(outcome.task.meta).toMatchObject({ status: 'working', crash_count: 2, attention: 'exit rule refused: working → stuck refused: auto-advance is paused' });
  });

  it('lets an unexpected failure of the exit rule’s move through instead of taking it for a refusal', async () => {
    const broken: OrangePlugin = {
      name: 'broken',
      apply(orange) {
        orange.hooks.beforeTransition.tapPromise('broken', async () => {
          throw new Error('veto check crashed');
        });
      },
    };
    await setUp({}, [broken]);
    const ref = await taskIn(box, 'planning', { body: PLAN, meta: { worker_spawn: 'w1' } });
    await expect(box.orange.engine.agentExited(ref, 'worker', 'w1', 'exit')).rejects.toThrow('veto check crashed');
    const after = await box.orange.store.read(ref.project, ref.id);
    expect(after.meta).toMatchObject({ status: 'planning', attention: null });
    expect(await historyTypes(ref)).not.toContain('auto.refused');
  });
});

describe('agentMissing', () => {
  it('applies the exit rule once per stay, recording an exit found by the poll', async () => {
    await setUp();
    const ref = await taskIn(box, 'working');
    const outcome = await box.orange.engine.agentMissing(ref, 'worker');
    expect(outcome.decision).toMatchObject({ kind: 'crash', crashCount: 1 });
    expect(outcome.task.meta.crash_count).toBe(1);
    expect((await history(ref)).slice(1)).toEqual([
      { type: 'agent.exited', role: 'worker', spawn: null, source: 'poll', status: 'working', reason: 'no agent running and none recorded', timestamp: expect.any(String) },
      expect.objectContaining({ type: 'agent.crashed', role: 'worker', crash_count: 1 }),
    ]);
    expect(await logged('agent exited')).toEqual([expect.objectContaining({ task: ref.id, role: 'worker', source: 'poll', decision: 'crash' })]);

    const again = await box.orange.engine.agentMissing(ref, 'worker');
    expect(again.decision).toEqual({ kind: 'ignore', reason: 'this agent exit was already handled' });
    expect(await historyTypes(ref)).toEqual(['task.created', 'agent.exited', 'agent.crashed']);
  });

  it('moves the task on when the artifact is there, as an exit would', async () => {
    await setUp();
    const ref = await taskIn(box, 'working', { body: HANDOFF });
    const outcome = await box.orange.engine.agentMissing(ref, 'worker');
    expect(outcome.decision).toMatchObject({ kind: 'advance', to: 'agent-review' });
    expect(outcome.task.meta.status).toBe('agent-review');
  });

  it('ignores a role that is not responsible for the status, and a status that is not active', async () => {
    await setUp();
    const cases: [string, AgentRole, string][] = [
      ['working', 'reviewer', 'the reviewer is not responsible for working'],
      ['agent-review', 'worker', 'the worker is not responsible for agent-review'],
      ['pending', 'worker', 'the worker is not responsible for pending'],
      ['done', 'worker', 'the worker is not responsible for done'],
    ];
    for (const [status, role, reason] of cases) {
      const ref = await taskIn(box, status, { meta: status === 'agent-review' ? { review_round: 1 } : {} });
      const outcome = await box.orange.engine.agentMissing(ref, role);
      expect(outcome.decision).toEqual({ kind: 'ignore', reason });
      expect(outcome.task.meta.status).toBe(status);
      expect(await historyTypes(ref)).toEqual(['task.created']);
    }
  });

  it('leaves an agent with a recorded spawn to its exit report', async () => {
    await setUp();
    const worker = await taskIn(box, 'working', { meta: { worker_spawn: 'w1' } });
    const reviewer = await taskIn(box, 'agent-review', { meta: { review_round: 1, reviewer_spawn: 'r1' } });
    for (const [ref, role] of [
      [worker, 'worker'],
      [reviewer, 'reviewer'],
    ] as const) {
      expect((await box.orange.engine.agentMissing(ref, role)).decision).toEqual({ kind: 'ignore', reason: 'a spawn is recorded; its exit is handled when reported' });
      expect(await historyTypes(ref)).toEqual(['task.created']);
    }
  });

  it('looks only at the spawn of the role it is asked about', async () => {
    await setUp();
    // The persistent worker stays recorded while a reviewer is responsible, and the other way round.
    const reviewing = await taskIn(box, 'agent-review', { body: HANDOFF + NO_VERDICT, meta: { review_round: 1, worker_spawn: 'w1' } });
    const working = await taskIn(box, 'working', { meta: { reviewer_spawn: 'r1' } });
    expect((await box.orange.engine.agentMissing(reviewing, 'reviewer')).decision).toMatchObject({ kind: 'crash', respawn: true });
    expect(box.calls).toEqual(['spawn_reviewer']);
    expect((await box.orange.engine.agentMissing(working, 'worker')).decision).toMatchObject({ kind: 'crash', respawn: false });
  });

  it('ignores an agent the runtime reports running', async () => {
    await setUp();
    const ref = await taskIn(box, 'working');
    w.alive.add(`${ref.id}:worker`);
    expect((await box.orange.engine.agentMissing(ref, 'worker')).decision).toEqual({ kind: 'ignore', reason: 'the worker is running' });
    expect(await historyTypes(ref)).toEqual(['task.created']);
  });

  it('takes the agent for running when no runtime is installed to ask', async () => {
    box = await sandbox();
    const ref = await taskIn(box, 'working');
    expect((await box.orange.engine.agentMissing(ref, 'worker')).decision).toEqual({ kind: 'ignore', reason: 'the worker is running' });
    expect(await historyTypes(ref)).toEqual(['task.created']);
  });

  it('leaves a task whose TASK.md was edited by hand alone, and handles it once repaired', async () => {
    await setUp();
    const ref = await taskIn(box, 'working');
    const restore = await forgeStatus(ref, 'working', 'planning');
    expect((await box.orange.engine.agentMissing(ref, 'worker')).decision).toEqual({ kind: 'ignore', reason: TAMPERED_REASON });
    expect(await historyTypes(ref)).toEqual(['task.created']);
    await restore();
    expect((await box.orange.engine.agentMissing(ref, 'worker')).decision.kind).toBe('crash');
  });

  it('fails with the error, not as tampered, when TASK.md cannot be read at the check', async () => {
    await setUp();
    const ref = await taskIn(box, 'working');
    // Overwritten between the first read and the tamper check (the runtime is asked in between).
    w.duringSnapshot = () => writeFile(box.orange.paths.taskFile(ref.project, ref.id), 'no front matter here\n');
    await expect(box.orange.engine.agentMissing(ref, 'worker')).rejects.toMatchObject({ code: 'E_FRONTMATTER' });
    expect(await historyTypes(ref)).toEqual(['task.created']);
  });
});

describe('agentMissing after a start that failed in Orange', () => {
  it('starts the agent again instead of counting a crash, clearing the failed start’s attention', async () => {
    await setUp();
    const ref = await taskIn(box, 'pending');
    w.failing.add('spawn_agent');
    expect((await box.orange.engine.spawn(ref)).failedHooks).toEqual(['spawn_agent']);
    expect((await box.orange.store.read(ref.project, ref.id)).meta.attention).toBe('hook failed: spawn_agent');
    w.failing.clear();
    box.calls.length = 0;
    w.moves.length = 0;

    const outcome = await box.orange.engine.agentMissing(ref, 'worker');
    const reason = `its start failed (spawn_agent: ${START_ERROR}); starting it again (1 of 3)`;
    expect(outcome.decision).toEqual({ kind: 'restart', attempt: 1, reason });
    // No workspace is recorded, so it is acquired again before the spawn.
    expect(box.calls).toEqual(['acquire_workspace', 'spawn_agent']);
    expect(w.moves).toEqual([{ action: 'spawn_agent', from: 'planning', to: 'planning', cause: 'respawn', reason }]);
    expect(outcome.task.meta).toMatchObject({ status: 'planning', worker_spawn: 'w1', crash_count: 0, attention: null });
    expect((await box.orange.store.read(ref.project, ref.id)).meta.attention).toBeNull();
    expect((await history(ref)).filter((e) => e.type === 'agent.restarted')).toEqual([{ type: 'agent.restarted', role: 'worker', attempt: 1, reason, timestamp: expect.any(String) }]);
    expect(await historyTypes(ref)).not.toContain('agent.exited');
    expect(await logged('agent start failed; starting it again')).toEqual([
      expect.objectContaining({ level: 'warn', task: ref.id, role: 'worker', attempt: 1, error: `spawn_agent: ${START_ERROR}` }),
    ]);
  });

  it('only spawns when a workspace is recorded, and flags the task when the start fails again', async () => {
    await setUp();
    const ref = await failedStart('planning', 'spawn_agent', { workspace: '/tmp/worktrees/demo-1' }, 1);
    w.failing.add('spawn_agent');
    const outcome = await box.orange.engine.agentMissing(ref, 'worker');
    expect(outcome.decision).toEqual({ kind: 'restart', attempt: 2, reason: `its start failed (spawn_agent: ${START_ERROR}); starting it again (2 of 3)` });
    expect(w.moves.map((m) => m.action)).toEqual(['spawn_agent']);
    expect(box.calls).toEqual([]);
    expect(outcome.task.meta).toMatchObject({ worker_spawn: null, attention: 'hook failed: spawn_agent' });
  });

  it('starts a reviewer whose start failed with spawn_reviewer', async () => {
    await setUp();
    const ref = await failedStart('agent-review', 'spawn_reviewer', { review_round: 1, workspace: '/tmp/worktrees/demo-1', worker_spawn: 'w1' });
    const outcome = await box.orange.engine.agentMissing(ref, 'reviewer');
    expect(outcome.decision).toEqual({ kind: 'restart', attempt: 1, reason: `its start failed (spawn_reviewer: ${START_ERROR}); starting it again (1 of 3)` });
    expect(box.calls).toEqual(['spawn_reviewer']);
    expect(w.moves).toEqual([expect.objectContaining({ action: 'spawn_reviewer', from: 'agent-review', to: 'agent-review', cause: 'respawn' })]);
    expect(outcome.task.meta.reviewer_spawn).toBe('r1');
  });

  it('makes the third restart, then counts a crash once the restarts are used up', async () => {
    await setUp();
    const last = await failedStart('working', 'spawn_agent', { workspace: '/tmp/worktrees/demo-1' }, 2);
    expect((await box.orange.engine.agentMissing(last, 'worker')).decision).toMatchObject({ kind: 'restart', attempt: 3 });

    const spent = await failedStart('working', 'spawn_agent', { workspace: '/tmp/worktrees/demo-2' }, 3);
    box.calls.length = 0;
    const outcome = await box.orange.engine.agentMissing(spent, 'worker');
    expect(outcome.decision).toMatchObject({ kind: 'crash', crashCount: 1 });
    expect(box.calls).toEqual([]);
    expect((await history(spent)).at(-2)).toMatchObject({ type: 'agent.exited', role: 'worker', spawn: null, source: 'poll' });
  });
});
