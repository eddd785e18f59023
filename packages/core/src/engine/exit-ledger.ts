import type { HistoryEvent } from '../store/index.js';
import type { AgentRole } from '../task/index.js';

/** True when, since the task entered its current status, an exit of `role` was already handled. */
export function exitHandledInStatus(history: readonly HistoryEvent[], role: AgentRole): boolean {
  for (let i = history.length - 1; i >= 0; i--) {
    const event = history[i] as HistoryEvent;
    if (event.type === 'status.changed' || event.type === 'task.created') return false;
    if ((event.type === 'agent.exited' || event.type === 'agent.crashed') && event.role === role) return true;
  }
  return false;
}

/** The actions that start an agent of each role (a failure of one is Orange's, not the agent's). */
const START_ACTIONS: Readonly<Record<AgentRole, readonly string[]>> = {
  worker: ['acquire_workspace', 'spawn_agent', 'notify_worker'],
  reviewer: ['acquire_workspace', 'spawn_reviewer'],
};

/** How many times one stay in a status restarts an agent whose start failed before it counts as a crash. */
export const START_RETRIES = 3;

/**
 * Since the task entered its current status: the failed start of an agent of `role` (an action that
 * starts it failed, and none was spawned after), with the restarts already made; null when the
 * agent did start (or was never tried). Such an agent never ran, so its absence is not its crash.
 */
export function failedStartInStatus(history: readonly HistoryEvent[], role: AgentRole): { readonly error: string; readonly restarts: number } | null {
  let error: string | null = null;
  let restarts = 0;
  for (let i = history.length - 1; i >= 0; i--) {
    const event = history[i] as HistoryEvent;
    if (event.type === 'status.changed' || event.type === 'task.created') break;
    if (event.type === 'agent.spawned' && event.role === role && error === null) return null;
    if (event.type === 'agent.restarted' && event.role === role) restarts++;
    if (event.type === 'hook.failed' && error === null && START_ACTIONS[role].includes(String(event.hook))) error = `${String(event.hook)}: ${String(event.error ?? 'failed')}`;
  }
  return error === null ? null : { error, restarts };
}
