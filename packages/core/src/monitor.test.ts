import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sandbox, taskIn, type Sandbox } from '../test/fixtures.js';
import { Monitor } from './monitor.js';
import type { OrangePlugin, Runtime } from './plugin.js';

/** A runtime whose agents are alive only while listed in `alive` (`<task id>:<role>`). */
function fakeRuntime(alive: Set<string>): OrangePlugin {
  const runtime: Runtime = {
    name: 'fake',
    snapshot: async () => ({ isAlive: (task, role) => alive.has(`${task.id}:${role}`), sessions: [], processes: 0 }),
    attach: async () => undefined,
    sessionName: (task) => `${task.project}/${task.id}`,
    killSession: async () => undefined,
  };
  return { name: 'fake-runtime', apply: (orange) => orange.provide('runtime', runtime) };
}

let box: Sandbox;
let alive: Set<string>;
beforeEach(async () => {
  alive = new Set();
  box = await sandbox({}, [fakeRuntime(alive)]);
});
afterEach(async () => box?.cleanup());

describe('an active task with no agent', () => {
  it('has its exit rule applied once when no spawn is recorded, and is left alone on later passes', async () => {
    const ref = await taskIn(box, 'working');
    const monitor = new Monitor(box.orange);
    const first = await monitor.pass();
    expect(first.exits).toEqual([{ task: ref.id, role: 'worker', decision: 'crash', reason: expect.stringContaining('without its artifact') }]);
    expect((await box.orange.store.read(ref.project, ref.id)).meta.crash_count).toBe(1);
    const second = await monitor.pass();
    expect(second.exits).toEqual([]);
    const history = await box.orange.store.history(ref.project, ref.id);
    expect(history.filter((e) => e.type === 'agent.crashed')).toHaveLength(1);
    expect(history.find((e) => e.type === 'agent.exited')).toMatchObject({ role: 'worker', spawn: null, source: 'poll' });
  });

  it('advances when the artifact is there, as an exit would', async () => {
    const ref = await taskIn(box, 'working', { body: '## Handoff\n\nDONE: all of it\n' });
    const report = await new Monitor(box.orange).pass();
    expect(report.exits).toEqual([expect.objectContaining({ task: ref.id, decision: 'advance' })]);
    expect((await box.orange.store.read(ref.project, ref.id)).meta.status).toBe('agent-review');
  });

  it('is not touched while its agent runs, nor when the agent is not the one responsible', async () => {
    const running = await taskIn(box, 'working');
    alive.add(`${running.id}:worker`);
    const reviewing = await taskIn(box, 'agent-review', { meta: { review_round: 1 } });
    alive.add(`${reviewing.id}:reviewer`);
    const report = await new Monitor(box.orange).pass();
    expect(report.exits).toEqual([]);
  });

  it('counts again after the task moved on and back: one handling per stay in a status', async () => {
    const ref = await taskIn(box, 'working');
    const monitor = new Monitor(box.orange);
    await monitor.pass();
    await box.orange.engine.transition(ref, 'clarification');
    await box.orange.engine.transition(ref, 'planning');
    const report = await monitor.pass();
    expect(report.exits).toEqual([expect.objectContaining({ task: ref.id, decision: 'crash' })]);
  });
});
