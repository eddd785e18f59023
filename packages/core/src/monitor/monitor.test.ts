import { readFile, utimes, writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sandbox, taskIn, type Sandbox } from '../../test/fixtures.js';
import { Monitor } from './monitor.js';
import type { OrangePlugin, Runtime } from '../plugin/index.js';

/** What the fake runtime saw: passes inside `snapshot` at once (at most), sessions it was asked to kill. */
interface RuntimeLog {
  inside: number;
  mostInside: number;
  sessions: string[];
  killed: string[];
  /** What `killSession` answers: false as when the session was gone already. */
  killAnswer: boolean;
}

/** A runtime whose agents are alive only while listed in `alive` (`<task id>:<role>`). */
function fakeRuntime(alive: Set<string>, seen: RuntimeLog): OrangePlugin {
  const runtime: Runtime = {
    name: 'fake',
    snapshot: async () => {
      seen.inside++;
      seen.mostInside = Math.max(seen.mostInside, seen.inside);
      // Long enough for a second pass started meanwhile to reach this point, were it not locked out.
      await new Promise((resolve) => setTimeout(resolve, 50));
      seen.inside--;
      return { isAlive: (task, role) => alive.has(`${task.id}:${role}`), sessions: [...seen.sessions], processes: 0 };
    },
    attach: async () => undefined,
    sessionName: (task) => `${task.project}/${task.id}`,
    killSession: async (name) => {
      seen.killed.push(name);
      return seen.killAnswer;
    },
  };
  return { name: 'fake-runtime', apply: (orange) => orange.provide('runtime', runtime) };
}

/** A `spawn_agent` that fails (before the recording one runs) while `failing.now` is true, as a tmux error would. */
function failingStart(failing: { now: boolean }): OrangePlugin {
  return {
    name: 'failing-start',
    apply: (orange) =>
      orange.hooks.actions.for('spawn_agent').tapPromise({ name: 'failing-start', stage: -10 }, async () => {
        if (failing.now) throw new Error('tmux new-session failed: server exited unexpectedly');
      }),
  };
}

let box: Sandbox;
let alive: Set<string>;
let seen: RuntimeLog;
let failing: { now: boolean };
beforeEach(async () => {
  alive = new Set();
  seen = { inside: 0, mostInside: 0, sessions: [], killed: [], killAnswer: true };
  failing = { now: false };
  box = await sandbox({}, [fakeRuntime(alive, seen), failingStart(failing)]);
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

  it('is not taken for dead when its agent comes up after the pass looked: the check is made again under the task lock', async () => {
    const ref = await taskIn(box, 'working');
    const runtime = box.orange.maybeSlot('runtime')!;
    let snapshots = 0;
    // Each snapshot keeps what it saw; the agent comes up right after the pass's own one.
    runtime.snapshot = async () => {
      const seenAlive = new Set(alive);
      if (++snapshots === 1) alive.add(`${ref.id}:worker`);
      return { isAlive: (task, role) => seenAlive.has(`${task.id}:${role}`), sessions: [], processes: 0 };
    };
    const report = await new Monitor(box.orange).pass();
    expect(snapshots).toBe(2);
    expect(report.exits).toEqual([]);
    expect((await box.orange.store.read(ref.project, ref.id)).meta).toMatchObject({ status: 'working', crash_count: 0 });
    expect((await box.orange.store.history(ref.project, ref.id)).some((e) => e.type === 'agent.exited')).toBe(false);
  });

  it('is left alone while its TASK.md was edited by hand (tampered), and handled once it is repaired', async () => {
    const ref = await taskIn(box, 'working');
    const file = box.orange.paths.taskFile('demo', ref.id);
    const original = await readFile(file, 'utf8');
    // Still a status whose responsible agent is the worker, so only the hand edit stops the exit rule.
    await writeFile(file, original.replace('status: working', 'status: planning'));
    const monitor = new Monitor(box.orange);
    expect((await monitor.pass()).exits).toEqual([]);
    expect((await box.orange.store.history(ref.project, ref.id)).some((e) => e.type === 'agent.exited')).toBe(false);
    expect(await readFile(box.orange.paths.logFile, 'utf8')).toContain('exit ignored: TASK.md was edited by hand');
    await writeFile(file, original);
    expect((await monitor.pass()).exits).toEqual([expect.objectContaining({ task: ref.id, decision: 'crash' })]);
  });

  it('counts again after the task moved on and back: one handling per stay in a status', async () => {
    const ref = await taskIn(box, 'working');
    const monitor = new Monitor(box.orange);
    await monitor.pass();
    await box.orange.engine.transition(ref, 'clarification', { actor: 'agent' });
    await box.orange.engine.transition(ref, 'planning', { actor: 'agent' });
    const report = await monitor.pass();
    expect(report.exits).toEqual([expect.objectContaining({ task: ref.id, decision: 'crash' })]);
  });
});

describe('an agent whose start failed in Orange', () => {
  it('is started again by the next pass, not counted as a crash of its own', async () => {
    const ref = await taskIn(box, 'pending');
    failing.now = true;
    expect((await box.orange.engine.spawn(ref)).failedHooks).toEqual(['spawn_agent']);
    const monitor = new Monitor(box.orange);
    const first = await monitor.pass();
    expect(first.exits).toEqual([{ task: ref.id, role: 'worker', decision: 'restart', reason: expect.stringContaining('its start failed (spawn_agent: tmux new-session failed') }]);
    failing.now = false;
    const second = await monitor.pass();
    expect(second.exits).toEqual([expect.objectContaining({ task: ref.id, decision: 'restart', reason: expect.stringContaining('(2 of 3)') })]);
    const task = await box.orange.store.read(ref.project, ref.id);
    expect(task.meta).toMatchObject({ status: 'planning', worker_spawn: 'w1', crash_count: 0, attention: null });
    alive.add(`${ref.id}:worker`);
    expect((await monitor.pass()).exits).toEqual([]);
    const history = await box.orange.store.history(ref.project, ref.id);
    expect(history.filter((e) => e.type === 'agent.restarted').map((e) => e.attempt)).toEqual([1, 2]);
    expect(history.some((e) => e.type === 'agent.crashed')).toBe(false);
  });

  it('counts as a crash once the restarts are used up', async () => {
    const ref = await taskIn(box, 'pending');
    failing.now = true;
    await box.orange.engine.spawn(ref);
    const monitor = new Monitor(box.orange);
    const decisions: string[] = [];
    for (let pass = 0; pass < 4; pass++) decisions.push(...(await monitor.pass()).exits.map((e) => e.decision));
    expect(decisions).toEqual(['restart', 'restart', 'restart', 'crash']);
    expect((await box.orange.store.read(ref.project, ref.id)).meta).toMatchObject({ status: 'planning', crash_count: 1 });
  });
});

describe('a task another process is moving', () => {
  it('is not waited for: the pass reports it busy at once, and the next pass takes it', async () => {
    const ref = await taskIn(box, 'working');
    const { withLock } = await import('../store/lock.js');
    const monitor = new Monitor(box.orange);
    const busy = await withLock(box.orange.paths.taskLockFile(ref.project, ref.id), 'a move in another process', () => monitor.pass());
    expect(busy).toMatchObject({ busy: [ref.id], exits: [] });
    // Waiting would have taken the lock helper's 15 s and then failed.
    expect(busy.durationMs).toBeLessThan(5_000);
    expect((await box.orange.store.read(ref.project, ref.id)).meta.crash_count).toBe(0);
    const next = await monitor.pass();
    expect(next).toMatchObject({ busy: [], exits: [expect.objectContaining({ task: ref.id, decision: 'crash' })] });
  });
});

describe('passes of several monitors', () => {
  it('never overlap: passes started at once run one after the other, and a dead agent is handled once', async () => {
    const ref = await taskIn(box, 'working');
    // Separate instances, as separate processes would have: only the pass lock is shared.
    const reports = await Promise.all([new Monitor(box.orange).pass(), new Monitor(box.orange).pass(), new Monitor(box.orange, { project: 'demo' }).pass()]);
    expect(seen.mostInside).toBe(1);
    expect(reports.flatMap((r) => r.exits)).toEqual([expect.objectContaining({ task: ref.id, decision: 'crash' })]);
    expect((await box.orange.store.history(ref.project, ref.id)).filter((e) => e.type === 'agent.crashed')).toHaveLength(1);
  });

  it('give up waiting for a pass that holds the lock too long with E_LOCKED, changing nothing', async () => {
    const ref = await taskIn(box, 'working');
    const { withLock } = await import('../store/lock.js');
    let waited: unknown;
    await withLock(box.orange.paths.monitorPassFile, 'the monitor pass', async () => {
      waited = await new Monitor(box.orange).pass({ waitMs: 100 }).catch((error: unknown) => error);
    });
    expect(waited).toMatchObject({ code: 'E_LOCKED', message: 'the monitor pass is busy (locked by another orange process); try again' });
    expect((await box.orange.store.read(ref.project, ref.id)).meta.crash_count).toBe(0);
  });
});

describe('orphan sessions', () => {
  it('reports a session killed only when this pass killed it, not one found gone meanwhile', async () => {
    const ref = await taskIn(box, 'cancelled');
    seen.sessions = [`demo/${ref.id}`];
    expect((await new Monitor(box.orange).pass()).sessionsKilled).toEqual([`demo/${ref.id}`]);
    seen.killAnswer = false;
    const report = await new Monitor(box.orange).pass();
    expect(seen.killed).toEqual([`demo/${ref.id}`, `demo/${ref.id}`]);
    expect(report.sessionsKilled).toEqual([]);
  });

  it('leaves a live agent alone when only the listing cache (a forged .index.json) says its task is finished', async () => {
    const ref = await taskIn(box, 'working');
    alive.add(`${ref.id}:worker`);
    seen.sessions = [`demo/${ref.id}`];
    // Files old enough for their index entry to be trusted; then the entry is forged, its key kept.
    const past = new Date(Date.now() - 10_000);
    for (const path of Object.values(box.orange.paths.taskFiles('demo', ref.id))) await utimes(path, past, past);
    await box.orange.store.list('demo');
    const index = box.orange.paths.taskIndexFile('demo');
    const stored = JSON.parse(await readFile(index, 'utf8')) as { entries: Record<string, { meta: { status: string } }> };
    stored.entries[ref.id]!.meta.status = 'done';
    await writeFile(index, JSON.stringify(stored));
    expect((await box.orange.store.list('demo')).tasks.find((t) => t.meta.id === ref.id)?.meta.status).toBe('done');
    const report = await new Monitor(box.orange).pass();
    expect(seen.killed).toEqual([]);
    expect(report.sessionsKilled).toEqual([]);
    expect((await box.orange.store.read(ref.project, ref.id)).meta).toMatchObject({ status: 'working', crash_count: 0 });
  });
});

