/**
 * What the exit handling reads from a task's ledger: whether an agent's exit was already handled
 * in the current stay in a status, and whether an agent's start failed in Orange (with the
 * restarts already made). Pure functions of the history, so the histories are written out here.
 */
import { describe, expect, it } from 'vitest';
import type { HistoryEvent } from '../store/index.js';
import { exitHandledInStatus, failedStartInStatus } from './exit-ledger.js';

/** One ledger entry; the timestamp plays no part in either answer. */
function event(type: string, fields: Record<string, unknown> = {}): HistoryEvent {
  return { type, timestamp: '2025-01-01T00:00:00.000Z', ...fields };
}

const created = event('task.created', { status: 'working' });
const moved = event('status.changed', { from: 'planning', to: 'working' });

describe('exitHandledInStatus', () => {
  it('is false for an empty ledger and for a stay with nothing about agents', () => {
    expect(exitHandledInStatus([], 'worker')).toBe(false);
    expect(exitHandledInStatus([created], 'worker')).toBe(false);
    expect(exitHandledInStatus([created, event('section.written', { section: 'Plan' })], 'worker')).toBe(false);
  });

  it('is true once an exit of the role was recorded since the task entered its status', () => {
    expect(exitHandledInStatus([created, event('agent.exited', { role: 'worker', spawn: 'w1' })], 'worker')).toBe(true);
    expect(exitHandledInStatus([created, moved, event('agent.exited', { role: 'reviewer', spawn: 'r1' })], 'reviewer')).toBe(true);
  });

  it('counts a recorded crash of the role as handled too', () => {
    expect(exitHandledInStatus([created, event('agent.crashed', { role: 'worker', crash_count: 1 }), event('hook.failed', { hook: 'notify_worker' })], 'worker')).toBe(true);
  });

  it('reads the whole stay, down to its first entry', () => {
    // The handled exit is the oldest entry it is given: the scan must reach index 0.
    expect(exitHandledInStatus([event('agent.exited', { role: 'worker' })], 'worker')).toBe(true);
    expect(exitHandledInStatus([event('agent.crashed', { role: 'worker' }), event('section.written'), event('section.written')], 'worker')).toBe(true);
  });

  it('does not count an exit of the other role, nor other events of the same role', () => {
    expect(exitHandledInStatus([created, event('agent.exited', { role: 'reviewer' }), event('agent.crashed', { role: 'reviewer' })], 'worker')).toBe(false);
    expect(exitHandledInStatus([created, event('agent.spawned', { role: 'worker' }), event('agent.restarted', { role: 'worker', attempt: 1 })], 'worker')).toBe(false);
  });

  it('forgets exits from before the last status change: each stay in a status is handled once', () => {
    const before = event('agent.exited', { role: 'worker', spawn: 'w1' });
    expect(exitHandledInStatus([created, before, moved], 'worker')).toBe(false);
    expect(exitHandledInStatus([created, before, moved, event('agent.spawned', { role: 'worker' })], 'worker')).toBe(false);
  });

  it('takes task.created as the start of a stay, like a status change', () => {
    expect(exitHandledInStatus([event('agent.exited', { role: 'worker' }), created], 'worker')).toBe(false);
  });
});

describe('failedStartInStatus', () => {
  const failed = (hook: string, error?: string) => event('hook.failed', { hook, from: 'pending', to: 'planning', ...(error === undefined ? {} : { error }) });

  it('is null when nothing in the stay failed, and for an empty ledger', () => {
    expect(failedStartInStatus([], 'worker')).toBeNull();
    expect(failedStartInStatus([created, event('agent.spawned', { role: 'worker' })], 'worker')).toBeNull();
  });

  it('names the start action that failed and its error, with no restarts yet', () => {
    expect(failedStartInStatus([created, failed('spawn_agent', 'tmux new-session failed')], 'worker')).toEqual({ error: 'spawn_agent: tmux new-session failed', restarts: 0 });
    expect(failedStartInStatus([created, moved, failed('acquire_workspace', 'no worktree free')], 'worker')).toEqual({ error: 'acquire_workspace: no worktree free', restarts: 0 });
    expect(failedStartInStatus([created, failed('notify_worker', 'no session')], 'worker')).toEqual({ error: 'notify_worker: no session', restarts: 0 });
    expect(failedStartInStatus([created, failed('spawn_reviewer', 'tmux said no')], 'reviewer')).toEqual({ error: 'spawn_reviewer: tmux said no', restarts: 0 });
  });

  it('says "failed" for a failure recorded without an error text', () => {
    expect(failedStartInStatus([created, failed('spawn_agent')], 'worker')).toEqual({ error: 'spawn_agent: failed', restarts: 0 });
  });

  it('reads the whole stay, down to its first entry', () => {
    expect(failedStartInStatus([failed('spawn_agent', 'boom')], 'worker')).toEqual({ error: 'spawn_agent: boom', restarts: 0 });
  });

  it('ignores failures of actions that do not start an agent of the role', () => {
    expect(failedStartInStatus([created, failed('kill_session', 'gone'), failed('spawn_reviewer', 'no')], 'worker')).toBeNull();
    expect(failedStartInStatus([created, failed('spawn_agent', 'no'), failed('notify_worker', 'no')], 'reviewer')).toBeNull();
  });

  it('takes only a hook.failed entry for a failure, not another entry that names a start action', () => {
    // A plugin's own entry (ActionContext.record) may carry a `hook` field; it is no failure.
    expect(failedStartInStatus([created, event('workspace.prepared', { hook: 'acquire_workspace', error: 'none' })], 'worker')).toBeNull();
  });

  it('is null when the agent was spawned after the failure: it did start', () => {
    expect(failedStartInStatus([created, failed('spawn_agent', 'boom'), event('agent.spawned', { role: 'worker' })], 'worker')).toBeNull();
  });

  it('still reports a failure that came after a spawn (a later start that failed), or after a spawn of the other role', () => {
    expect(failedStartInStatus([created, event('agent.spawned', { role: 'worker' }), failed('spawn_agent', 'boom')], 'worker')).toEqual({ error: 'spawn_agent: boom', restarts: 0 });
    expect(failedStartInStatus([created, failed('spawn_agent', 'boom'), event('agent.spawned', { role: 'reviewer' })], 'worker')).toEqual({ error: 'spawn_agent: boom', restarts: 0 });
  });

  it('reports the latest failure when the start failed more than once', () => {
    const history = [created, failed('spawn_agent', 'first'), event('agent.restarted', { role: 'worker', attempt: 1 }), failed('spawn_agent', 'second')];
    expect(failedStartInStatus(history, 'worker')).toEqual({ error: 'spawn_agent: second', restarts: 1 });
  });

  it('counts the restarts of the role made in the stay, and nothing else', () => {
    const history = [
      created,
      failed('spawn_agent', 'boom'),
      event('agent.restarted', { role: 'worker', attempt: 1 }),
      event('agent.restarted', { role: 'reviewer', attempt: 1 }),
      event('agent.exited', { role: 'worker', spawn: null }),
      event('agent.restarted', { role: 'worker', attempt: 2 }),
    ];
    expect(failedStartInStatus(history, 'worker')).toEqual({ error: 'spawn_agent: boom', restarts: 2 });
  });

  it('forgets failures and restarts from before the last status change', () => {
    expect(failedStartInStatus([created, failed('spawn_agent', 'boom'), moved], 'worker')).toBeNull();
    const history = [created, event('agent.restarted', { role: 'worker', attempt: 1 }), moved, failed('spawn_agent', 'again')];
    expect(failedStartInStatus(history, 'worker')).toEqual({ error: 'spawn_agent: again', restarts: 0 });
  });

  it('takes task.created as the start of a stay, like a status change', () => {
    expect(failedStartInStatus([failed('spawn_agent', 'boom'), created], 'worker')).toBeNull();
  });
});
