import { listProcesses, OrangeError, processTree, stopProcesses, type ProcessEntry } from '@orange/core';
import type { TmuxClient } from './tmux-client.js';

/** What to kill: a whole session, or one window (by exact name target or by its `@id`). */
export type KillScope = 'session' | 'window';

/** How long a verified kill waits at each step (tests shorten it). */
export interface KillTimings {
  /** For the agents to exit on the SIGHUP tmux sends when their pane closes. */
  readonly graceMs: number;
  /** After SIGTERM, and again after SIGKILL. */
  readonly signalWaitMs: number;
}

/** About 3 s in all: an agent that ignores SIGHUP and SIGTERM is SIGKILLed after 2 s. */
export const DEFAULT_KILL_TIMINGS: KillTimings = { graceMs: 1_000, signalWaitMs: 1_000 };

/** The pid of every pane of a session (`=name`) or window; empty when it does not exist (or no server runs). */
export async function panePids(client: TmuxClient, scope: KillScope, target: string): Promise<number[]> {
  // list-panes reads its target as a window: a bare `=name` would fall back to a session matched
  // by prefix, while `=name:` (that session's current window, every pane with -s) stays exact.
  const args = scope === 'session' ? ['-s', '-t', `${target}:`] : ['-t', target];
  const result = await client.attempt(['list-panes', ...args, '-F', '#{pane_pid}']);
  if (!result.ok) return [];
  return result.stdout
    .split('\n')
    .map((line) => Number.parseInt(line, 10))
    .filter((pid) => Number.isInteger(pid) && pid > 1);
}

/**
 * Kills a tmux session or window and returns only once it and every process started in it are
 * gone: the pane processes are read first (`list-panes -F '#{pane_pid}'`), the kill closes the
 * panes (tmux sends SIGHUP), and whatever still runs in the panes' sessions or process groups, or
 * descends from them, gets SIGTERM, then SIGKILL. A missing target is success. Throws E_RUNTIME
 * when something survives all of it, so a caller never reports success while an agent lives.
 * True when this call closed it; false when it was gone already (someone else's kill got there first).
 */
export async function killVerified(client: TmuxClient, scope: KillScope, target: string, timings: KillTimings = DEFAULT_KILL_TIMINGS): Promise<boolean> {
  const pids = await panePids(client, scope, target);
  const roots = new Set(pids);
  const key = (p: ProcessEntry) => `${p.pid}:${p.start}`;
  // Read before the kill: once a pane process dies its children are re-parented and the link is lost.
  const before = new Set(processTree(await listProcesses(), pids).map(key));
  const killed = await client.killIfPresent([scope === 'session' ? 'kill-session' : 'kill-window', '-t', target]);
  if (pids.length === 0) return killed;
  if ((await panePids(client, scope, target)).length > 0) {
    throw new OrangeError('E_RUNTIME', `tmux ${scope} ${target} is still there after kill-${scope}`, { target });
  }
  // Later surveys match by session or group, not by parentage: a detached exit report started by a
  // dying wrapper is its own session and must be left to finish.
  const survivors = await stopProcesses(
    (table) => table.filter((p) => before.has(key(p)) || roots.has(p.sid) || roots.has(p.pgid)),
    { graceMs: timings.graceMs, signalWaitMs: timings.signalWaitMs },
  );
  if (survivors.length > 0) {
    const list = survivors.map((p) => p.pid).join(', ');
    throw new OrangeError('E_RUNTIME', `processes of tmux ${scope} ${target} still run after SIGKILL (pid ${list})`, { target, pids: survivors.map((p) => p.pid) });
  }
  return killed;
}
