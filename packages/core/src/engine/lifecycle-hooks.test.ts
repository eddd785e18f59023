/**
 * The lifecycle hooks a plugin observes besides the transition ones (hooks.test.ts): a task
 * created, an agent exited, a crash counted, a task moved on by exit monitoring, an agent
 * spawned. Each case taps them from an extra plugin and checks what it saw and when, against
 * the "Fires" column of docs/plugins.md.
 */
import { readFile } from 'node:fs/promises';
import type { AsyncSeriesHook } from 'tapable';
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import { editSection, sandbox, taskIn, type Sandbox } from '../../test/fixtures.js';
import type { AgentEvent, AutoAdvancedEvent, CrashEvent, TaskEvent } from '../plugin/index.js';
import type { OrangePlugin } from '../plugin/index.js';

const PLAN = '## Plan\n\nAPPROACH: split the parser\nTOUCHING: parser.ts\n';
const HANDOFF = '## Handoff\n\nDONE: parser split\n';
const NO_VERDICT = '## Review\n\nstill reading\n';

/** Each hook's events in firing order, plus one list of hook names across all of them. */
interface Seen {
  readonly taskCreated: TaskEvent[];
  readonly agentSpawned: AgentEvent[];
  readonly agentExited: AgentEvent[];
  readonly crash: CrashEvent[];
  readonly autoAdvanced: AutoAdvancedEvent[];
  readonly order: string[];
}

function seen(): Seen {
  return { taskCreated: [], agentSpawned: [], agentExited: [], crash: [], autoAdvanced: [], order: [] };
}

/**
 * A plugin recording every lifecycle event into `into`; `during` runs inside each tap, so a
 * test can look at the task's files at the moment the hook fires.
 */
function observer(into: Seen, during: (hook: string) => Promise<void> = async () => {}): OrangePlugin {
  return {
    name: 'observer',
    apply(orange) {
      const record = <E>(hook: string, list: E[]) => async (event: E) => {
        list.push(event);
        into.order.push(hook);
        await during(hook);
      };
      orange.hooks.taskCreated.tapPromise('observer', record('taskCreated', into.taskCreated));
      orange.hooks.agentSpawned.tapPromise('observer', record('agentSpawned', into.agentSpawned));
      orange.hooks.agentExited.tapPromise('observer', record('agentExited', into.agentExited));
      orange.hooks.crash.tapPromise('observer', record('crash', into.crash));
      orange.hooks.autoAdvanced.tapPromise('observer', record('autoAdvanced', into.autoAdvanced));
      orange.hooks.afterTransition.tapPromise('observer', async () => void into.order.push('afterTransition'));
    },
  };
}

/** A plugin whose taps of every lifecycle hook throw. */
const clumsy: OrangePlugin = {
  name: 'clumsy',
  apply(orange) {
    const boom = (hook: string) => async () => {
      throw new Error(`${hook} observer crashed`);
    };
    orange.hooks.taskCreated.tapPromise('clumsy', boom('taskCreated'));
    orange.hooks.agentExited.tapPromise('clumsy', boom('agentExited'));
    orange.hooks.crash.tapPromise('clumsy', boom('crash'));
    orange.hooks.autoAdvanced.tapPromise('clumsy', boom('autoAdvanced'));
  },
};

let box: Sandbox;
afterEach(async () => box?.cleanup());

async function historyTypes(id: string): Promise<string[]> {
  return (await box.orange.store.history('demo', id)).map((e) => e.type);
}

describe('taskCreated', () => {
  it('fires once per createTask with the new task, after TASK.md and task.created exist and before it is started', async () => {
    const events = seen();
    const moments: { history: string[]; calls: string[] }[] = [];
    box = await sandbox({}, [
      observer(events, async () => {
        const id = events.taskCreated.at(-1)?.task.meta.id ?? '';
        moments.push({ history: await historyTypes(id), calls: [...box.calls] });
      }),
    ]);
    const first = await box.orange.engine.createTask({ project: 'demo', summary: 'split the parser' });
    const second = await box.orange.engine.createTask({ project: 'demo', summary: 'rename the lexer' });

    expect(events.taskCreated.map((e) => e.task.meta.id)).toEqual([first.task.meta.id, second.task.meta.id]);
    expect(events.taskCreated[0]?.task.meta).toMatchObject({ project: 'demo', summary: 'split the parser', status: 'pending' });
    expect(events.taskCreated[0]?.orange).toBe(box.orange);
    // Each start (pending → planning: acquire_workspace, spawn_agent) came after its task's event.
    expect(moments).toEqual([
      { history: ['task.created'], calls: [] },
      { history: ['task.created'], calls: ['acquire_workspace', 'spawn_agent'] },
    ]);
    expect(first.task.meta.status).toBe('planning');
  });

  it('fires for a task that is not started (spawn: false) and for one created in another status, before its create actions', async () => {
    const events = seen();
    const callsAtEvent: string[][] = [];
    box = await sandbox({}, [observer(events, async () => void callsAtEvent.push([...box.calls]))]);
    await box.orange.engine.createTask({ project: 'demo', summary: 'later', spawn: false });
    const asked = await box.orange.engine.createTask({ project: 'demo', summary: 'unclear', status: 'clarification' });

    expect(events.taskCreated.map((e) => e.task.meta.status)).toEqual(['pending', 'clarification']);
    expect(callsAtEvent).toEqual([[], []]);
    expect(box.calls).toEqual(['acquire_workspace', 'spawn_agent']);
    expect(asked.spawned).toBe(true);
  });

  it('does not fire when the create is refused', async () => {
    const events = seen();
    box = await sandbox({}, [observer(events)]);
    await box.orange.engine.createTask({ project: 'demo', branch: 'feature/parser', summary: 'split the parser' });
    await expect(box.orange.engine.createTask({ project: 'demo', branch: 'feature/parser', summary: 'again' })).rejects.toMatchObject({ code: 'E_TASK_EXISTS' });
    await expect(box.orange.engine.createTask({ project: 'demo', summary: 'x', status: 'working' })).rejects.toMatchObject({ code: 'E_INVALID_INPUT' });
    expect(events.taskCreated).toHaveLength(1);
  });

  it('runs without the task lock held, so a tap may take it', async () => {
    // docs/plugins.md: "Everything except taskCreated runs while the engine holds the task's lock."
    let patched = false;
    const locker: OrangePlugin = {
      name: 'locker',
      apply(orange) {
        orange.hooks.taskCreated.tapPromise('locker', async ({ task }) => {
          await orange.store.patch(task.meta.project, task.meta.id, { pr_url: 'https://example.test/pr/1' });
          patched = true;
        });
      },
    };
    box = await sandbox({}, [locker]);
    const { task } = await box.orange.engine.createTask({ project: 'demo', summary: 'split the parser' });
    expect(patched).toBe(true);
    expect(task.meta).toMatchObject({ status: 'planning', pr_url: 'https://example.test/pr/1' });
  });
});

describe('agentExited', () => {
  it('fires with the role and spawn id after the id is cleared and agent.exited recorded, before the exit rule moves the task', async () => {
    const events = seen();
    const moments: { status: string; workerSpawn: string | null; history: string[]; calls: string[] }[] = [];
    box = await sandbox({}, [
      observer(events, async (hook) => {
        if (hook !== 'agentExited') return;
        const task = await box.orange.store.read('demo', ref.id);
        moments.push({ status: task.meta.status, workerSpawn: task.meta.worker_spawn, history: await historyTypes(ref.id), calls: [...box.calls] });
      }),
    ]);
    const ref = await taskIn(box, 'working', { body: HANDOFF, meta: { worker_spawn: 'w1' } });

    const outcome = await box.orange.engine.agentExited(ref, 'worker', 'w1', 'exit');
    expect(outcome.decision.kind).toBe('advance');
    expect(events.agentExited).toHaveLength(1);
    expect(events.agentExited[0]).toMatchObject({ role: 'worker', spawnId: 'w1' });
    expect(events.agentExited[0]?.task.meta).toMatchObject({ id: ref.id, status: 'working', worker_spawn: null });
    expect(moments).toEqual([{ status: 'working', workerSpawn: null, history: ['task.created', 'agent.exited'], calls: [] }]);
    expect(events.order).toEqual(['agentExited', 'autoAdvanced', 'afterTransition']);
  });

  it.each([
    ['mark', 'reviewing', '', 'worker', { worker_spawn: 'w7' }, 'w7'],
    ['crash', 'planning', '', 'worker', { worker_spawn: 'w7' }, 'w7'],
    ['escalate', 'planning', '', 'worker', { worker_spawn: 'w7', crash_count: 1 }, 'w7'],
    ['crash', 'agent-review', HANDOFF + NO_VERDICT, 'reviewer', { review_round: 1, reviewer_spawn: 'r7' }, 'r7'],
  ] as const)('fires once also when the decision is %s (%s, %s)', async (kind, status, body, role, meta, spawnId) => {
    const events = seen();
    box = await sandbox({}, [observer(events)]);
    const ref = await taskIn(box, status, { body, meta });
    const outcome = await box.orange.engine.agentExited(ref, role, spawnId, 'exit');
    expect(outcome.decision.kind).toBe(kind);
    expect(events.agentExited.map((e) => ({ role: e.role, spawnId: e.spawnId, status: e.task.meta.status }))).toEqual([{ role, spawnId, status }]);
  });

  it('passes the live spawn id when the exit was found by the poll (no id in the report)', async () => {
    const events = seen();
    box = await sandbox({}, [observer(events)]);
    const ref = await taskIn(box, 'reviewing', { meta: { worker_spawn: 'w3' } });
    await box.orange.engine.agentExited(ref, 'worker', null, 'poll');
    expect(events.agentExited.map((e) => e.spawnId)).toEqual(['w3']);
  });

  it('does not fire for a report about an older spawn, or when no agent is recorded', async () => {
    const events = seen();
    box = await sandbox({}, [observer(events)]);
    const replaced = await taskIn(box, 'working', { body: HANDOFF, meta: { worker_spawn: 'w2' } });
    const idle = await taskIn(box, 'reviewing');
    expect((await box.orange.engine.agentExited(replaced, 'worker', 'w1', 'exit')).decision.kind).toBe('ignore');
    expect((await box.orange.engine.agentExited(idle, 'worker', null, 'poll')).decision.kind).toBe('ignore');
    expect(events.order).toEqual([]);
  });
});

describe('crash', () => {
  it('fires with the status, the new crashCount and the reason, after agent.crashed and before the respawn', async () => {
    const events = seen();
    const moments: { history: string[]; calls: string[]; crashCount: number }[] = [];
    box = await sandbox({}, [
      observer(events, async (hook) => {
        if (hook !== 'crash') return;
        const task = await box.orange.store.read('demo', ref.id);
        moments.push({ history: await historyTypes(ref.id), calls: [...box.calls], crashCount: task.meta.crash_count });
      }),
    ]);
    const ref = await taskIn(box, 'agent-review', { body: HANDOFF + NO_VERDICT, meta: { review_round: 1, reviewer_spawn: 'r1' } });

    const outcome = await box.orange.engine.agentExited(ref, 'reviewer', 'r1', 'exit');
    expect(outcome.decision).toMatchObject({ kind: 'crash', crashCount: 1, respawn: true });
    const reason = (outcome.decision as { reason: string }).reason;
    expect(reason).toMatch(/^process exited without its artifact/);
    expect(events.crash).toHaveLength(1);
    expect(events.crash[0]).toMatchObject({ status: 'agent-review', crashCount: 1, reason });
    expect(events.crash[0]?.task.meta).toMatchObject({ id: ref.id, crash_count: 1 });
    expect(moments).toEqual([{ history: ['task.created', 'agent.exited', 'agent.crashed'], calls: [], crashCount: 1 }]);
    expect(box.calls).toEqual(['spawn_reviewer']);
    expect(events.order).toEqual(['agentExited', 'crash']);
  });

  it('fires on the crash that reaches the limit, before the move to crashTo', async () => {
    const events = seen();
    const ledgerAtCrash: (string | null)[] = [];
    box = await sandbox({}, [
      observer(events, async (hook) => {
        if (hook === 'crash') ledgerAtCrash.push(await box.orange.store.ledgerStatus('demo', ref.id));
      }),
    ]);
    const ref = await taskIn(box, 'planning', { meta: { worker_spawn: 'w1', crash_count: 1 } });

    const outcome = await box.orange.engine.agentExited(ref, 'worker', 'w1', 'exit');
    expect(outcome.decision).toMatchObject({ kind: 'escalate', to: 'stuck', crashCount: 2 });
    expect(events.crash.map((e) => ({ status: e.status, crashCount: e.crashCount, reason: e.reason }))).toEqual([
      { status: 'planning', crashCount: 2, reason: (outcome.decision as { reason: string }).reason },
    ]);
    expect(ledgerAtCrash).toEqual(['planning']);
    expect(events.order).toEqual(['agentExited', 'crash', 'autoAdvanced', 'afterTransition']);
  });

  it('does not fire when the agent left its artifact, nor on a mark', async () => {
    const events = seen();
    box = await sandbox({}, [observer(events)]);
    const done = await taskIn(box, 'planning', { body: PLAN, meta: { worker_spawn: 'w1' } });
    const waiting = await taskIn(box, 'reviewing', { meta: { worker_spawn: 'w1' } });
    expect((await box.orange.engine.agentExited(done, 'worker', 'w1', 'exit')).decision.kind).toBe('advance');
    expect((await box.orange.engine.agentExited(waiting, 'worker', 'w1', 'exit')).decision.kind).toBe('mark');
    expect(events.crash).toEqual([]);
  });
});

describe('autoAdvanced', () => {
  it('fires with from, to and the exit rule’s reason, after auto.advanced is recorded and just before afterTransition', async () => {
    const events = seen();
    const historyAtEvent: string[][] = [];
    box = await sandbox({}, [
      observer(events, async (hook) => {
        if (hook === 'autoAdvanced') historyAtEvent.push(await historyTypes(ref.id));
      }),
    ]);
    const ref = await taskIn(box, 'working', { body: HANDOFF, meta: { worker_spawn: 'w1' } });

    const outcome = await box.orange.engine.agentExited(ref, 'worker', 'w1', 'exit');
    expect(outcome.decision).toMatchObject({ kind: 'advance', to: 'agent-review', reason: 'worker exited; gate handoff passed' });
    expect(events.autoAdvanced.map((e) => ({ from: e.from, to: e.to, reason: e.reason, status: e.task.meta.status }))).toEqual([
      { from: 'working', to: 'agent-review', reason: 'worker exited; gate handoff passed', status: 'agent-review' },
    ]);
    expect(historyAtEvent).toEqual([['task.created', 'agent.exited', 'status.changed', 'auto.advanced']]);
    expect(events.order.slice(-2)).toEqual(['autoAdvanced', 'afterTransition']);
  });

  it('names the crash limit in the reason when a crash moves the task', async () => {
    const events = seen();
    box = await sandbox({}, [observer(events)]);
    const ref = await taskIn(box, 'working', { meta: { worker_spawn: 'w1', crash_count: 1 } });
    await box.orange.engine.agentExited(ref, 'worker', 'w1', 'exit');
    expect(events.autoAdvanced).toHaveLength(1);
    expect(events.autoAdvanced[0]).toMatchObject({ from: 'working', to: 'stuck', reason: expect.stringMatching(/^crash limit reached: process exited without its artifact/) });
  });

  it('fires for an automatic move outside exit monitoring (cause auto, e.g. a merged pull request)', async () => {
    const events = seen();
    box = await sandbox({}, [observer(events)]);
    const ref = await taskIn(box, 'reviewing');
    await box.orange.engine.transition(ref, 'done', { cause: 'auto', reason: 'pull request merged' });
    expect(events.autoAdvanced.map((e) => [e.from, e.to, e.reason])).toEqual([['reviewing', 'done', 'pull request merged']]);
  });

  it('does not fire for a requested transition, nor for an exit rule a plugin vetoed', async () => {
    const events = seen();
    const pause: OrangePlugin = {
      name: 'pause',
      apply(orange) {
        orange.hooks.beforeTransition.tapPromise('pause', async (e) => (e.cause === 'auto' ? 'auto-advance is paused' : undefined));
      },
    };
    box = await sandbox({}, [observer(events), pause]);
    const asked = await taskIn(box, 'planning', { body: PLAN });
    const exited = await taskIn(box, 'planning', { body: PLAN, meta: { worker_spawn: 'w1' } });
    await box.orange.engine.transition(asked, 'working');
    await box.orange.engine.agentExited(exited, 'worker', 'w1', 'exit');
    expect((await box.orange.store.read('demo', exited.id)).meta.status).toBe('planning');
    expect(events.autoAdvanced).toEqual([]);
  });
});

describe('agentSpawned', () => {
  // Only the runtime plugin fires agentSpawned (plugins/tmux/src/agent-spawn.ts, after it started
  // the agent and wrote its spawn id); core never does, so there is no firing check here — the
  // tmux plugin's tests own it. Core's part is the declaration plugins rely on.
  it('is declared on the bus as an AsyncSeriesHook of one AgentEvent, delivered to taps as given', async () => {
    const events = seen();
    box = await sandbox({}, [observer(events)]);
    expectTypeOf(box.orange.hooks.agentSpawned).toEqualTypeOf<AsyncSeriesHook<[AgentEvent]>>();
    expectTypeOf<AgentEvent>().toExtend<TaskEvent & { role: 'worker' | 'reviewer'; spawnId: string }>();

    const ref = await taskIn(box, 'planning');
    const task = await box.orange.store.read(ref.project, ref.id);
    const event: AgentEvent = { orange: box.orange, task, role: 'worker', spawnId: 's1' };
    await expect(box.orange.hooks.agentSpawned.promise(event)).resolves.toBeUndefined();
    expect(events.agentSpawned).toEqual([event]);
    expect(events.agentSpawned[0]).toBe(event);
  });

  it('is not fired by core on its own: a task run with no-op spawn actions fires none', async () => {
    const events = seen();
    box = await sandbox({}, [observer(events)]);
    const { task } = await box.orange.engine.createTask({ project: 'demo', summary: 'split the parser' });
    const ref = { project: 'demo', id: task.meta.id };
    await editSection(box, ref, 'Plan', 'APPROACH: split it');
    await box.orange.engine.transition(ref, 'working');
    await editSection(box, ref, 'Handoff', 'DONE: split');
    await box.orange.engine.transition(ref, 'agent-review');
    expect(box.calls).toContain('spawn_reviewer');
    expect(events.agentSpawned).toEqual([]);
  });
});

describe('a lifecycle tap that throws', () => {
  it('is logged as "lifecycle hook failed" and changes nothing: the create, the exit rule and the respawn all happen', async () => {
    box = await sandbox({}, [clumsy]);
    const { task } = await box.orange.engine.createTask({ project: 'demo', summary: 'split the parser' });
    expect(task.meta.status).toBe('planning');

    const advancing = await taskIn(box, 'working', { body: HANDOFF, meta: { worker_spawn: 'w1' } });
    expect((await box.orange.engine.agentExited(advancing, 'worker', 'w1', 'exit')).task.meta.status).toBe('agent-review');

    const crashing = await taskIn(box, 'agent-review', { body: HANDOFF + NO_VERDICT, meta: { review_round: 1, reviewer_spawn: 'r1' } });
    box.calls.length = 0;
    const outcome = await box.orange.engine.agentExited(crashing, 'reviewer', 'r1', 'exit');
    expect(outcome.task.meta).toMatchObject({ crash_count: 1, attention: null });
    expect(box.calls).toEqual(['spawn_reviewer']);

    const failures = (await readFile(box.orange.paths.logFile, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { msg: string; hook?: string })
      .filter((r) => r.msg === 'lifecycle hook failed')
      .map((r) => r.hook);
    expect(failures).toEqual(['taskCreated', 'agentExited', 'autoAdvanced', 'agentExited', 'crash']);
  });
});
