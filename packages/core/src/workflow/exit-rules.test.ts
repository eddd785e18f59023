/**
 * The seed-003 exit rules, decided from a task and its artifacts alone: `decideExit` touches no
 * disk, so every rule is checked here against an in-memory task. The spawn-id staleness check
 * lives in `Engine.agentExited` (the decision never sees spawn ids) and is checked at the end.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { sandbox, taskIn, type Sandbox } from '../../test/fixtures.js';
import { failedStartInStatus } from '../engine/exit-ledger.js';
import { decideExit } from './exit-rules.js';
import { builtinGates, type Gate } from './gates.js';
import { newTaskId } from '../store/names.js';
import { newTaskMeta } from '../store/task-file.js';
import type { AgentRole, Task, TaskMeta } from '../task/task.js';
import { defaultWorkflow } from './default.js';
import { Workflow } from './workflow.js';

const workflow = Workflow.load(defaultWorkflow);
const gates: ReadonlyMap<string, Gate> = new Map(Object.entries(builtinGates));

const PLAN = '## Plan\n\nAPPROACH: split the parser\nTOUCHING: parser.ts\n';
const HANDOFF = '## Handoff\n\nDONE: parser split\n';
const PASS = '## Review\n\nVerdict: PASS\nclean\n';
const FAIL = '## Review\n\nVerdict: FAIL\nbroken\n';

function task(status: string, body = '', meta: Partial<TaskMeta> = {}): Task {
  const id = newTaskId();
  return { meta: newTaskMeta({ id, project: 'demo', branch: `orange-tasks/${id}`, status, ...meta }), body };
}

function decide(t: Task, role: AgentRole) {
  return decideExit(workflow, t, role, gates);
}

describe('decideExit in planning (worker)', () => {
  it('advances to working when ## Plan passes its gate', async () => {
    expect(await decide(task('planning', PLAN), 'worker')).toMatchObject({ kind: 'advance', to: 'working' });
  });

  it('counts a first crash without a plan, leaving the worker for the user to respawn', async () => {
    const decision = await decide(task('planning'), 'worker');
    expect(decision).toMatchObject({ kind: 'crash', crashCount: 1, respawn: false });
    expect(decision.reason).toContain('## Plan');
  });

  it('counts a crash when ## Plan is there but has no field with content', async () => {
    expect(await decide(task('planning', '## Plan\n\nAPPROACH:\n'), 'worker')).toMatchObject({ kind: 'crash', crashCount: 1 });
  });

  it('escalates to stuck on the second crash in a row', async () => {
    expect(await decide(task('planning', '', { crash_count: 1 }), 'worker')).toMatchObject({ kind: 'escalate', to: 'stuck', crashCount: 2 });
  });

  it('advances even after a crash when the plan is finally there', async () => {
    expect(await decide(task('planning', PLAN, { crash_count: 1 }), 'worker')).toMatchObject({ kind: 'advance', to: 'working' });
  });
});

describe('decideExit in working (worker)', () => {
  it('advances to agent-review with a valid ## Handoff', async () => {
    expect(await decide(task('working', HANDOFF), 'worker')).toMatchObject({ kind: 'advance', to: 'agent-review' });
  });

  it('does not advance on a plan alone: a crash without the handoff, naming the section', async () => {
    const decision = await decide(task('working', PLAN), 'worker');
    expect(decision).toMatchObject({ kind: 'crash', crashCount: 1, respawn: false });
    expect(decision.reason).toContain('## Handoff');
  });

  it('escalates to stuck on the second crash', async () => {
    expect(await decide(task('working', '', { crash_count: 1 }), 'worker')).toMatchObject({ kind: 'escalate', to: 'stuck', crashCount: 2 });
  });
});

describe('decideExit in agent-review (reviewer)', () => {
  it('advances to reviewing on Verdict: PASS', async () => {
    expect(await decide(task('agent-review', HANDOFF + PASS, { review_round: 1 }), 'reviewer')).toMatchObject({ kind: 'advance', to: 'reviewing' });
  });

  it('advances to working on Verdict: FAIL in round 1', async () => {
    expect(await decide(task('agent-review', HANDOFF + FAIL, { review_round: 1 }), 'reviewer')).toMatchObject({ kind: 'advance', to: 'working' });
  });

  it('advances to stuck on Verdict: FAIL in round 2', async () => {
    expect(await decide(task('agent-review', HANDOFF + FAIL, { review_round: 2 }), 'reviewer')).toMatchObject({ kind: 'advance', to: 'stuck' });
  });

  it('takes a PASS in round 2 to reviewing, not stuck', async () => {
    expect(await decide(task('agent-review', PASS, { review_round: 2 }), 'reviewer')).toMatchObject({ kind: 'advance', to: 'reviewing' });
  });

  it('counts a crash and respawns the reviewer when ## Review has no verdict', async () => {
    const decision = await decide(task('agent-review', '## Review\n\nlooks fine to me\n', { review_round: 1 }), 'reviewer');
    expect(decision).toMatchObject({ kind: 'crash', crashCount: 1, respawn: true });
    expect(decision.reason).toContain('Verdict');
  });

  it('counts a crash and respawns the reviewer when ## Review is missing', async () => {
    expect(await decide(task('agent-review', HANDOFF, { review_round: 1 }), 'reviewer')).toMatchObject({ kind: 'crash', crashCount: 1, respawn: true });
  });

  it('escalates to stuck when the respawned reviewer also exits without a verdict', async () => {
    expect(await decide(task('agent-review', '', { review_round: 1, crash_count: 1 }), 'reviewer')).toMatchObject({
      kind: 'escalate',
      to: 'stuck',
      crashCount: 2,
    });
  });
});

describe.each(['clarification', 'reviewing', 'stuck'])('decideExit in %s (worker)', (status) => {
  it('only marks the session crashed, whatever the artifacts', async () => {
    const decision = await decide(task(status, PLAN + HANDOFF + PASS, { review_round: 1 }), 'worker');
    expect(decision.kind).toBe('mark');
  });

  it('never counts a crash there, even at the crash limit', async () => {
    const decision = await decide(task(status, '', { crash_count: 1 }), 'worker');
    expect(decision.kind).toBe('mark');
    expect(decision).not.toHaveProperty('crashCount');
  });
});

describe('decideExit for an exit the status has moved past', () => {
  it('ignores a reviewer exit once a FAIL has sent the task back to working', async () => {
    expect(await decide(task('working', HANDOFF + FAIL, { review_round: 1 }), 'reviewer')).toMatchObject({ kind: 'ignore' });
  });

  it('ignores a worker exit while the reviewer is responsible (agent-review)', async () => {
    expect(await decide(task('agent-review', HANDOFF, { review_round: 1 }), 'worker')).toMatchObject({ kind: 'ignore' });
  });

  it.each(['done', 'cancelled'])('ignores any exit once the task is %s', async (status) => {
    expect(await decide(task(status, PLAN), 'worker')).toMatchObject({ kind: 'ignore' });
    expect(await decide(task(status, PASS), 'reviewer')).toMatchObject({ kind: 'ignore' });
  });
});

describe('decideExit is pure', () => {
  it('returns the same decision for the same input and leaves the task as it was', async () => {
    const t = task('planning', '', { crash_count: 1 });
    const snapshot = structuredClone(t);
    const first = await decide(t, 'worker');
    expect(await decide(t, 'worker')).toEqual(first);
    expect(t).toEqual(snapshot);
  });

  it('looks gates up in the map it is given (a missing gate is a crash, not an advance)', async () => {
    const decision = await decideExit(workflow, task('planning', PLAN), 'worker', new Map());
    expect(decision).toMatchObject({ kind: 'crash', crashCount: 1 });
    expect(decision.reason).toContain('unknown gate plan');
  });
});

describe('a stale exit report (Engine.agentExited)', () => {
  let box: Sandbox;
  afterEach(async () => box?.cleanup());

  it('is a no-op when its spawn id is not the task’s current worker spawn', async () => {
    box = await sandbox();
    const ref = await taskIn(box, 'planning', { body: PLAN, meta: { worker_spawn: 'w2' } });
    const before = await box.orange.store.history('demo', ref.id);
    const outcome = await box.orange.engine.agentExited(ref, 'worker', 'w1', 'exit');
    expect(outcome.decision.kind).toBe('ignore');
    const after = await box.orange.store.read('demo', ref.id);
    expect(after.meta).toMatchObject({ status: 'planning', worker_spawn: 'w2', crash_count: 0 });
    expect(await box.orange.store.history('demo', ref.id)).toEqual(before);
  });

  it('is a no-op when the reviewer spawn id belongs to an earlier round', async () => {
    box = await sandbox();
    const ref = await taskIn(box, 'agent-review', { body: HANDOFF, meta: { review_round: 2, reviewer_spawn: 'r2' } });
    const outcome = await box.orange.engine.agentExited(ref, 'reviewer', 'r1', 'exit');
    expect(outcome.decision.kind).toBe('ignore');
    expect((await box.orange.store.read('demo', ref.id)).meta).toMatchObject({ status: 'agent-review', reviewer_spawn: 'r2', crash_count: 0 });
    expect(box.calls).toEqual([]);
  });

  it('is a no-op when no agent of that role is recorded as running', async () => {
    box = await sandbox();
    const ref = await taskIn(box, 'working', { body: '' });
    const outcome = await box.orange.engine.agentExited(ref, 'worker', null, 'poll');
    expect(outcome.decision.kind).toBe('ignore');
    expect((await box.orange.store.read('demo', ref.id)).meta.crash_count).toBe(0);
  });
});

describe('failedStartInStatus', () => {
  const at = (type: string, fields: Record<string, unknown> = {}) => ({ type, timestamp: '2026-01-01T00:00:00.000Z', ...fields });
  const entered = at('status.changed', { from: 'pending', to: 'planning' });

  it('finds a start that failed in this status, with the restarts already made', () => {
    const history = [entered, at('hook.failed', { hook: 'spawn_agent', error: 'tmux new-session failed' }), at('agent.restarted', { role: 'worker' }), at('hook.failed', { hook: 'spawn_agent', error: 'again' })];
    expect(failedStartInStatus(history, 'worker')).toEqual({ error: 'spawn_agent: again', restarts: 1 });
  });

  it('finds nothing once the agent was spawned after the failure, nor for a failure of another role or an earlier status', () => {
    expect(failedStartInStatus([entered, at('hook.failed', { hook: 'spawn_agent', error: 'x' }), at('agent.spawned', { role: 'worker' })], 'worker')).toBeNull();
    expect(failedStartInStatus([entered, at('hook.failed', { hook: 'spawn_reviewer', error: 'x' })], 'worker')).toBeNull();
    expect(failedStartInStatus([at('hook.failed', { hook: 'spawn_agent', error: 'x' }), entered], 'worker')).toBeNull();
    expect(failedStartInStatus([entered, at('hook.failed', { hook: 'delete_remote_branch', error: 'x' })], 'worker')).toBeNull();
  });
});

describe('decideExit says why', () => {
  // The reason is what the ledger's agent.exited / agent.crashed records and `task show` print.
  it('names the status an exit is ignored in, and who is responsible there', async () => {
    expect(await decide(task('done', PLAN), 'worker')).toEqual({ kind: 'ignore', reason: 'task is done' });
    expect(await decide(task('agent-review', HANDOFF, { review_round: 1 }), 'worker')).toEqual({
      kind: 'ignore',
      reason: 'the worker exited while reviewer is responsible for agent-review',
    });
    expect(await decide(task('pending'), 'worker')).toEqual({ kind: 'ignore', reason: 'the worker exited while no agent is responsible for pending' });
  });

  it('ignores an exit in a status the workflow no longer has (it changed under the task)', async () => {
    expect(await decide(task('triage'), 'worker')).toEqual({ kind: 'ignore', reason: 'task is triage' });
  });

  it('names the gate that passed, and the wait for a person when it only marks', async () => {
    expect(await decide(task('planning', PLAN), 'worker')).toEqual({ kind: 'advance', to: 'working', reason: 'worker exited; gate plan passed' });
    expect(await decide(task('reviewing'), 'worker')).toEqual({ kind: 'mark', reason: 'worker exited in reviewing; waiting for a human' });
  });

  describe('in a workflow whose exit target has no gate', () => {
    const gateless = Workflow.load({
      name: 'gateless',
      initial: 'pending',
      start: 'draft',
      states: { pending: {}, draft: { agent: 'worker' }, polish: { agent: 'worker' }, done: { terminal: true } },
      transitions: [
        { from: 'pending', to: 'draft', by: ['person'] },
        { from: 'draft', to: 'polish', by: ['orange'], guard: 'review_round >= 1' },
        { from: 'polish', to: 'done', by: ['person'] },
      ],
      exit: { pending: { otherwise: 'mark' }, draft: { advance: ['polish'], otherwise: 'crash', crashTo: 'polish' }, polish: { otherwise: 'mark' } },
      create: { pending: { hooks: [] } },
      prompts: {},
    });

    it('advances when its guard holds, saying no gate was asked', async () => {
      expect(await decideExit(gateless, task('draft', '', { review_round: 1 }), 'worker', new Map())).toEqual({
        kind: 'advance',
        to: 'polish',
        reason: 'worker exited; no gate',
      });
    });

    it('counts a crash when its guard fails, saying no exit target applies', async () => {
      expect(await decideExit(gateless, task('draft'), 'worker', new Map())).toEqual({
        kind: 'crash',
        crashCount: 1,
        respawn: false,
        reason: 'process exited without its artifact (no exit target applies)',
      });
    });
  });
});
