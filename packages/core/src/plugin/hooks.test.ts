/**
 * The hook bus as a plugin sees it: vetoes before a transition, the after-transition event,
 * actions that fail after the status is written, and the exit path running the same code.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { editSection, filesOf, recordingPlugin, sandbox, taskIn, type Sandbox } from '../../test/fixtures.js';
import { TransitionRefused } from '../errors/errors.js';
import type { HookFailedEvent, TransitionEvent, TransitionRefusedEvent } from './index.js';
import { Orange } from '../orange.js';
import type { OrangePlugin } from './index.js';
import { OrangePaths } from '../store/paths.js';
import { defaultWorkflow } from '../workflow/default.js';
import type { WorkflowInput } from '../workflow/definition.js';

const PLAN = '## Plan\n\nAPPROACH: split the parser\nTOUCHING: parser.ts\n';
const HANDOFF = '## Handoff\n\nDONE: parser split\n';
const PASS = '## Review\n\nVerdict: PASS\nclean\n';

let box: Sandbox;
afterEach(async () => box?.cleanup());

/** A plugin that taps lifecycle hooks; each option is one tap. */
function lifecycle(name: string, taps: {
  before?: (event: TransitionEvent) => string | undefined;
  after?: (event: TransitionEvent) => void;
  failed?: (event: HookFailedEvent) => void;
}): OrangePlugin {
  return {
    name,
    apply(orange) {
      if (taps.before) orange.hooks.beforeTransition.tapPromise(name, async (e) => taps.before?.(e));
      if (taps.after) orange.hooks.afterTransition.tapPromise(name, async (e) => taps.after?.(e));
      if (taps.failed) orange.hooks.hookFailed.tapPromise(name, async (e) => taps.failed?.(e));
    },
  };
}

/** A plugin whose tap of `action` throws `message`. */
function failing(action: string, message: string): OrangePlugin {
  return {
    name: `broken-${action}`,
    apply(orange) {
      orange.hooks.actions.for(action).tapPromise(`broken-${action}`, async () => {
        throw new Error(message);
      });
    },
  };
}

describe('beforeTransition', () => {
  it('vetoes with a reason: E_VETOED naming both statuses and the reason, and nothing changes', async () => {
    const seen: TransitionEvent[] = [];
    box = await sandbox({}, [lifecycle('gatekeeper', { before: (e) => (seen.push(e), 'the pool is busy') })]);
    const ref = await taskIn(box, 'planning', { body: PLAN });
    const before = await filesOf(box, ref);

    const refusal = await box.orange.engine.transition(ref, 'working').catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(TransitionRefused);
    expect(refusal).toMatchObject({
      code: 'E_VETOED',
      from: 'planning',
      to: 'working',
      message: 'planning → working refused: the pool is busy',
      details: { from: 'planning', to: 'working', reason: 'the pool is busy' },
    });
    expect(await filesOf(box, ref)).toEqual(before);
    expect(box.calls).toEqual([]);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ from: 'planning', to: 'working', cause: 'request' });
    expect(seen[0]?.task.meta.status).toBe('planning');
  });

  it('is asked only after map, guard and gate pass: a gate refusal never reaches the veto', async () => {
    const seen: string[] = [];
    box = await sandbox({}, [lifecycle('gatekeeper', { before: (e) => (seen.push(e.to), 'no') })]);
    const ref = await taskIn(box, 'planning');
    await expect(box.orange.engine.transition(ref, 'working')).rejects.toMatchObject({ code: 'E_GATE_FAILED' });
    expect(seen).toEqual([]);
  });

  it('lets the transition through when every tap returns nothing or an empty string', async () => {
    box = await sandbox({}, [lifecycle('quiet', { before: () => undefined }), lifecycle('blank', { before: () => '' })]);
    const ref = await taskIn(box, 'planning', { body: PLAN });
    const result = await box.orange.engine.transition(ref, 'working');
    expect(result.task.meta.status).toBe('working');
  });

  it('vetoes one transition and not another, deciding from the event', async () => {
    box = await sandbox({}, [lifecycle('no-cancel', { before: (e) => (e.to === 'cancelled' ? 'cancelling is off' : undefined) })]);
    const ref = await taskIn(box, 'planning', { body: PLAN });
    await expect(box.orange.engine.transition(ref, 'cancelled')).rejects.toMatchObject({ code: 'E_VETOED' });
    expect((await box.orange.engine.transition(ref, 'working')).task.meta.status).toBe('working');
  });
});

/** A plugin recording every `transitionRefused` event into `into`. */
function refusals(into: TransitionRefusedEvent[]): OrangePlugin {
  return {
    name: 'audit',
    apply(orange) {
      orange.hooks.transitionRefused.tapPromise('audit', async (e) => void into.push(e));
    },
  };
}

/** The facts of a refusal event a notifier would report. */
function facts(e: TransitionRefusedEvent | undefined) {
  return e && { from: e.from, to: e.to, cause: e.cause, source: e.source, check: e.check, code: e.code, reason: e.reason, status: e.task.meta.status };
}

describe('transitionRefused', () => {
  it('reports a request refused by the map, a guard and a gate, naming the check and the bare reason', async () => {
    const seen: TransitionRefusedEvent[] = [];
    box = await sandbox({}, [refusals(seen)]);
    const planning = await taskIn(box, 'planning');
    await expect(box.orange.engine.transition(planning, 'reviewing')).rejects.toMatchObject({ code: 'E_ILLEGAL_TRANSITION' });
    await expect(box.orange.engine.transition(planning, 'working')).rejects.toMatchObject({ code: 'E_GATE_FAILED' });
    const review = await taskIn(box, 'agent-review', { body: '## Review\n\nVerdict: FAIL\nredo\n', meta: { review_round: 2 } });
    await expect(box.orange.engine.request(review, { status: 'working' })).rejects.toMatchObject({ code: 'E_GUARD_FAILED' });

    expect(seen.map(facts)).toEqual([
      expect.objectContaining({ from: 'planning', to: 'reviewing', cause: 'request', source: 'request', check: 'map', code: 'E_ILLEGAL_TRANSITION', status: 'planning' }),
      { from: 'planning', to: 'working', cause: 'request', source: 'request', check: 'gate', code: 'E_GATE_FAILED', reason: 'TASK.md has no ## Plan section', status: 'planning' },
      expect.objectContaining({ from: 'agent-review', to: 'working', source: 'request', check: 'guard', code: 'E_GUARD_FAILED' }),
    ]);
    expect(seen[2]?.reason).toMatch(/^guard "review_round < 2" does not hold/);
  });

  it('reports a vetoed request with the veto\'s own sentence, and changes nothing', async () => {
    const seen: TransitionRefusedEvent[] = [];
    box = await sandbox({}, [lifecycle('gatekeeper', { before: () => 'the pool is busy' }), refusals(seen)]);
    const ref = await taskIn(box, 'planning', { body: PLAN });
    const before = await filesOf(box, ref);
    await expect(box.orange.engine.transition(ref, 'working')).rejects.toMatchObject({ code: 'E_VETOED' });
    expect(seen.map(facts)).toEqual([
      { from: 'planning', to: 'working', cause: 'request', source: 'request', check: 'veto', code: 'E_VETOED', reason: 'the pool is busy', status: 'planning' },
    ]);
    expect(await filesOf(box, ref)).toEqual(before);
  });

  it('reports a vetoed exit-rule advance as source exit-rule, before the task is flagged', async () => {
    const seen: TransitionRefusedEvent[] = [];
    box = await sandbox({}, [lifecycle('gatekeeper', { before: (e) => (e.cause === 'auto' ? 'auto-advance is paused' : undefined) }), refusals(seen)]);
    const ref = await taskIn(box, 'planning', { body: PLAN, meta: { worker_spawn: 'w1' } });
    await box.orange.engine.agentExited(ref, 'worker', 'w1', 'exit');
    expect(seen.map(facts)).toEqual([
      { from: 'planning', to: 'working', cause: 'auto', source: 'exit-rule', check: 'veto', code: 'E_VETOED', reason: 'auto-advance is paused', status: 'planning' },
    ]);
    const task = await box.orange.store.read('demo', ref.id);
    expect(task.meta.attention).toBe('exit rule refused: planning → working refused: auto-advance is paused');
    expect(task.meta.crash_count).toBe(0);
  });

  it('does not fire for a transition that goes through, and a throwing tap does not change the refusal', async () => {
    const seen: TransitionRefusedEvent[] = [];
    const loud: OrangePlugin = {
      name: 'loud',
      apply(orange) {
        orange.hooks.transitionRefused.tapPromise('loud', async () => {
          throw new Error('notifier down');
        });
      },
    };
    box = await sandbox({}, [refusals(seen), loud]);
    const ref = await taskIn(box, 'planning', { body: PLAN });
    await expect(box.orange.engine.transition(ref, 'done')).rejects.toMatchObject({ code: 'E_ILLEGAL_TRANSITION' });
    expect((await box.orange.engine.transition(ref, 'working')).task.meta.status).toBe('working');
    expect(seen.map((e) => `${e.from} → ${e.to}`)).toEqual(['planning → done']);
  });
});

describe('afterTransition', () => {
  it('fires once with from and to, after the status is written and every action ran', async () => {
    const seen: { from: string; to: string; status: string; calls: string[] }[] = [];
    box = await sandbox({}, [
      lifecycle('observer', { after: (e) => seen.push({ from: e.from, to: e.to, status: e.task.meta.status, calls: [...box.calls] }) }),
    ]);
    const ref = await taskIn(box, 'agent-review', { body: HANDOFF + PASS, meta: { review_round: 1 } });
    await box.orange.engine.transition(ref, 'reviewing');
    expect(seen).toEqual([{ from: 'agent-review', to: 'reviewing', status: 'reviewing', calls: ['kill_reviewer', 'notify_worker'] }]);
  });

  it('does not fire for a refused transition', async () => {
    let fired = 0;
    box = await sandbox({}, [lifecycle('observer', { after: () => void fired++ }), lifecycle('gatekeeper', { before: () => 'no' })]);
    const ref = await taskIn(box, 'planning', { body: PLAN });
    await expect(box.orange.engine.transition(ref, 'working')).rejects.toMatchObject({ code: 'E_VETOED' });
    expect(fired).toBe(0);
  });

  it('a throwing after-transition tap does not undo or fail the transition', async () => {
    box = await sandbox({}, [
      lifecycle('clumsy', {
        after: () => {
          throw new Error('observer crashed');
        },
      }),
    ]);
    const ref = await taskIn(box, 'planning', { body: PLAN });
    const result = await box.orange.engine.transition(ref, 'working');
    expect(result.failedHooks).toEqual([]);
    expect((await box.orange.store.read('demo', ref.id)).meta).toMatchObject({ status: 'working', attention: null });
  });
});

describe('a transition action that fails after the status is written', () => {
  it('keeps the new status, records hook.failed naming the action, flags the task and still runs the rest', async () => {
    const failures: HookFailedEvent[] = [];
    box = await sandbox({}, [failing('kill_reviewer', 'tmux server is gone'), lifecycle('observer', { failed: (e) => failures.push(e) })]);
    const ref = await taskIn(box, 'agent-review', { body: HANDOFF + PASS, meta: { review_round: 1 } });

    const result = await box.orange.engine.transition(ref, 'reviewing');
    expect(result.failedHooks).toEqual(['kill_reviewer']);
    // The recording tap of kill_reviewer ran before the broken one; notify_worker still ran after.
    expect(box.calls).toEqual(['kill_reviewer', 'notify_worker']);

    const task = await box.orange.store.read('demo', ref.id);
    expect(task.meta.status).toBe('reviewing');
    expect(task.meta.attention).toBe('hook failed: kill_reviewer');
    expect(await box.orange.store.ledgerStatus('demo', ref.id)).toBe('reviewing');

    const history = await box.orange.store.history('demo', ref.id);
    const types = history.map((e) => e.type);
    expect(types.indexOf('status.changed')).toBeLessThan(types.indexOf('hook.failed'));
    expect(history.filter((e) => e.type === 'hook.failed')).toEqual([
      expect.objectContaining({ hook: 'kill_reviewer', from: 'agent-review', to: 'reviewing', error: 'tmux server is gone' }),
    ]);
    expect(failures.map((e) => [e.action, e.error.message])).toEqual([['kill_reviewer', 'tmux server is gone']]);
  });

  it('names every failed action in the attention flag', async () => {
    box = await sandbox({}, [failing('kill_reviewer', 'a'), failing('notify_worker', 'b')]);
    const ref = await taskIn(box, 'agent-review', { body: HANDOFF + PASS, meta: { review_round: 1 } });
    const result = await box.orange.engine.transition(ref, 'reviewing');
    expect(result.failedHooks).toEqual(['kill_reviewer', 'notify_worker']);
    expect((await box.orange.store.read('demo', ref.id)).meta.attention).toBe('hooks failed: kill_reviewer, notify_worker');
  });

  it('keeps field updates the actions made before the failure', async () => {
    box = await sandbox({}, [failing('spawn_reviewer', 'no harness')], { recordCore: true });
    const ref = await taskIn(box, 'working', { body: HANDOFF });
    await box.orange.engine.transition(ref, 'agent-review');
    expect((await box.orange.store.read('demo', ref.id)).meta).toMatchObject({ status: 'agent-review', review_round: 1, attention: 'hook failed: spawn_reviewer' });
  });

  it('a later clean transition clears the attention flag', async () => {
    box = await sandbox({}, [failing('kill_reviewer', 'gone')]);
    const ref = await taskIn(box, 'agent-review', { body: HANDOFF + PASS, meta: { review_round: 1 } });
    await box.orange.engine.transition(ref, 'reviewing');
    const result = await box.orange.engine.transition(ref, 'working');
    expect(result.task.meta.attention).toBeNull();
  });
});

describe('crash_count', () => {
  it('resets to 0 after a successful transition', async () => {
    box = await sandbox();
    const ref = await taskIn(box, 'planning', { body: PLAN, meta: { crash_count: 1 } });
    const result = await box.orange.engine.transition(ref, 'working');
    expect(result.task.meta.crash_count).toBe(0);
    expect((await box.orange.store.read('demo', ref.id)).meta.crash_count).toBe(0);
  });

  it('resets even when an action failed', async () => {
    box = await sandbox({}, [failing('kill_reviewer', 'gone')]);
    const ref = await taskIn(box, 'agent-review', { body: HANDOFF + PASS, meta: { review_round: 1, crash_count: 1 } });
    await box.orange.engine.transition(ref, 'reviewing');
    expect((await box.orange.store.read('demo', ref.id)).meta.crash_count).toBe(0);
  });

  it('is kept by a refused transition', async () => {
    box = await sandbox({}, [lifecycle('gatekeeper', { before: () => 'no' })]);
    const ref = await taskIn(box, 'planning', { body: PLAN, meta: { crash_count: 1 } });
    await expect(box.orange.engine.transition(ref, 'working')).rejects.toMatchObject({ code: 'E_VETOED' });
    expect((await box.orange.store.read('demo', ref.id)).meta.crash_count).toBe(1);
  });
});

describe('the agent-exited path', () => {
  it('advances through the same transition code: hooks, actions in order, status.changed and one auto.advanced', async () => {
    const events: string[] = [];
    box = await sandbox(
      {},
      [lifecycle('observer', { before: (e) => void events.push(`before ${e.from}→${e.to} ${e.cause}`), after: (e) => void events.push(`after ${e.from}→${e.to} ${e.cause}`) })],
      { recordCore: true },
    );
    const ref = await taskIn(box, 'working', { body: HANDOFF, meta: { worker_spawn: 'w1', crash_count: 1 } });

    const outcome = await box.orange.engine.agentExited(ref, 'worker', 'w1', 'exit');
    expect(outcome.decision).toMatchObject({ kind: 'advance', to: 'agent-review' });
    expect(outcome.task.meta).toMatchObject({ status: 'agent-review', review_round: 1, crash_count: 0, worker_spawn: null, reviewer_spawn: 'r1' });
    expect(events).toEqual(['before working→agent-review auto', 'after working→agent-review auto']);
    expect(box.calls).toEqual(['increment_review_round', 'spawn_reviewer']);

    const history = await box.orange.store.history('demo', ref.id);
    expect(history.map((e) => e.type)).toEqual(['task.created', 'agent.exited', 'status.changed', 'auto.advanced']);
    expect(history[2]).toMatchObject({ from: 'working', to: 'agent-review', cause: 'auto' });
  });

  it('treats a repeated exit report for the same spawn id as a no-op', async () => {
    box = await sandbox({}, [], { recordCore: true });
    const ref = await taskIn(box, 'working', { body: HANDOFF, meta: { worker_spawn: 'w1' } });
    await box.orange.engine.agentExited(ref, 'worker', 'w1', 'exit');
    const files = await filesOf(box, ref);
    box.calls.length = 0;

    const again = await box.orange.engine.agentExited(ref, 'worker', 'w1', 'exit');
    const poll = await box.orange.engine.agentExited(ref, 'worker', null, 'poll');
    expect(again.decision.kind).toBe('ignore');
    expect(poll.decision.kind).toBe('ignore');
    expect(box.calls).toEqual([]);
    expect(await filesOf(box, ref)).toEqual(files);
    const history = await box.orange.store.history('demo', ref.id);
    expect(history.filter((e) => e.type === 'auto.advanced')).toHaveLength(1);
    expect(history.filter((e) => e.type === 'agent.exited')).toHaveLength(1);
  });

  it('is subject to the same veto as a requested transition, and a vetoed exit rule flags the task', async () => {
    box = await sandbox({}, [lifecycle('gatekeeper', { before: (e) => (e.cause === 'auto' ? 'auto-advance is paused' : undefined) })]);
    const ref = await taskIn(box, 'planning', { body: PLAN, meta: { worker_spawn: 'w1' } });
    const outcome = await box.orange.engine.agentExited(ref, 'worker', 'w1', 'exit');
    expect(outcome.decision).toMatchObject({ kind: 'advance', to: 'working' });
    const task = await box.orange.store.read('demo', ref.id);
    expect(task.meta.status).toBe('planning');
    expect(task.meta.attention).toBe('exit rule refused: planning → working refused: auto-advance is paused');
    expect(await box.orange.store.ledgerStatus('demo', ref.id)).toBe('planning');
    const refused = (await box.orange.store.history('demo', ref.id)).filter((e) => e.type === 'auto.refused');
    expect(refused).toEqual([expect.objectContaining({ from: 'planning', to: 'working', code: 'E_VETOED' })]);
    expect(box.calls).toEqual([]);
  });

  it('records a failed action on the exit path like on a request', async () => {
    box = await sandbox({}, [failing('spawn_reviewer', 'no harness')]);
    const ref = await taskIn(box, 'working', { body: HANDOFF, meta: { worker_spawn: 'w1' } });
    const outcome = await box.orange.engine.agentExited(ref, 'worker', 'w1', 'exit');
    expect(outcome.task.meta).toMatchObject({ status: 'agent-review', attention: 'hook failed: spawn_reviewer' });
    const history = await box.orange.store.history('demo', ref.id);
    expect(history.filter((e) => e.type === 'hook.failed').map((e) => e.hook)).toEqual(['spawn_reviewer']);
  });

  it('respawns a reviewer that exited without a verdict through the spawn_reviewer action', async () => {
    box = await sandbox();
    const ref = await taskIn(box, 'agent-review', { body: HANDOFF + '## Review\n\nno verdict here\n', meta: { review_round: 1, reviewer_spawn: 'r1' } });
    const outcome = await box.orange.engine.agentExited(ref, 'reviewer', 'r1', 'exit');
    expect(outcome.decision).toMatchObject({ kind: 'crash', crashCount: 1, respawn: true });
    expect(box.calls).toEqual(['spawn_reviewer']);
    expect((await box.orange.store.read('demo', ref.id)).meta).toMatchObject({ status: 'agent-review', crash_count: 1, reviewer_spawn: 'r1' });
  });

  it('decides from the TASK.md the agent left behind (an edit made after the last engine write)', async () => {
    box = await sandbox();
    const ref = await taskIn(box, 'planning', { meta: { worker_spawn: 'w1' } });
    await editSection(box, ref, 'Plan', 'APPROACH: do it');
    const outcome = await box.orange.engine.agentExited(ref, 'worker', 'w1', 'exit');
    expect(outcome.task.meta.status).toBe('working');
    expect(outcome.task.body).toContain('APPROACH: do it');
  });

  it('moves a twice-crashed worker to stuck through the crash transition, resetting crash_count', async () => {
    box = await sandbox();
    const ref = await taskIn(box, 'planning', { meta: { worker_spawn: 'w1', crash_count: 1 } });
    const outcome = await box.orange.engine.agentExited(ref, 'worker', 'w1', 'exit');
    expect(outcome.decision).toMatchObject({ kind: 'escalate', to: 'stuck' });
    expect(outcome.task.meta).toMatchObject({ status: 'stuck', crash_count: 0 });
    expect(box.calls).toEqual(['notify_worker']);
    const history = await box.orange.store.history('demo', ref.id);
    expect(history.map((e) => e.type)).toEqual(['task.created', 'agent.exited', 'agent.crashed', 'status.changed', 'auto.advanced']);
  });
});

describe('actions named by a workflow at Orange.create', () => {
  const paths = () => new OrangePaths(join(tmpdir(), 'orange-core-never-written'));
  const withCreateAction = (action: string): WorkflowInput => ({
    ...defaultWorkflow,
    name: 'warm',
    create: { ...defaultWorkflow.create, pending: { hooks: [action] } },
  });

  it('refuses an action in a create rule that no plugin provides, naming the action', async () => {
    await expect(Orange.create({ workflow: withCreateAction('warm_cache'), plugins: [recordingPlugin([])] }, { paths: paths() })).rejects.toMatchObject({
      code: 'E_WORKFLOW_INVALID',
      message: expect.stringContaining('no plugin provides hook "warm_cache"'),
    });
  });

  it('does not count a plugin that only looks the action up without tapping it', async () => {
    const lookup: OrangePlugin = {
      name: 'lookup',
      apply(orange) {
        orange.hooks.actions.for('warm_cache');
      },
    };
    await expect(
      Orange.create({ workflow: withCreateAction('warm_cache'), plugins: [recordingPlugin([]), lookup] }, { paths: paths() }),
    ).rejects.toMatchObject({ code: 'E_WORKFLOW_INVALID', message: expect.stringContaining('"warm_cache"') });
  });

  it('refuses an extra workflow from the config (workflows: [...]) naming an unprovided action, at load', async () => {
    // SPEC §4: "A hook named by a workflow with no plugin providing it is a load-time error."
    const extra = { ...withCreateAction('warm_cache'), name: 'extra' };
    await expect(Orange.create({ workflows: [extra], plugins: [recordingPlugin([])] }, { paths: paths() })).rejects.toMatchObject({
      code: 'E_WORKFLOW_INVALID',
      message: expect.stringContaining('no plugin provides hook "warm_cache"'),
    });
  });
});
