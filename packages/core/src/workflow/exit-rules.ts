import type { Gate } from './gates.js';
import { evaluateGuard } from './guard.js';
import { parseSections } from '../task/index.js';
import type { AgentRole, Task } from '../task/index.js';
import type { Workflow } from './workflow.js';

/** What to do when an agent's process is gone. */
export type ExitDecision =
  | { readonly kind: 'ignore'; readonly reason: string }
  | { readonly kind: 'advance'; readonly to: string; readonly reason: string }
  | { readonly kind: 'crash'; readonly crashCount: number; readonly respawn: boolean; readonly reason: string }
  | { readonly kind: 'escalate'; readonly to: string; readonly crashCount: number; readonly reason: string }
  | { readonly kind: 'mark'; readonly reason: string }
  /** The agent never ran: Orange's own start of it failed. It is started again, not counted as a crash. */
  | { readonly kind: 'restart'; readonly attempt: number; readonly reason: string };

/**
 * The dead-session decision (seed 003 "Exit Monitoring"), from the task and its artifacts only:
 * try each exit target's guard and gate in order; otherwise count a crash, escalating at the limit.
 * No I/O; gates are looked up in `gates` (they may be async, e.g. a plugin's test gate).
 */
export async function decideExit(
  workflow: Workflow,
  task: Task,
  role: AgentRole,
  gates: ReadonlyMap<string, Gate>,
): Promise<ExitDecision> {
  const status = task.meta.status;
  const state = workflow.state(status);
  if (state === undefined || state.terminal) return { kind: 'ignore', reason: `task is ${status}` };
  if (state.agent !== role) {
    return { kind: 'ignore', reason: `the ${role} exited while ${state.agent ?? 'no agent'} is responsible for ${status}` };
  }
  const rule = workflow.exitRule(status);
  if (rule === undefined) return { kind: 'mark', reason: `no exit rule for ${status}` };

  const sections = parseSections(task.body);
  const fields = task.meta as Record<string, unknown>;
  const refusals: string[] = [];
  for (const to of rule.advance) {
    for (const transition of workflow.between(status, to)) {
      if (transition.parsedGuard && !evaluateGuard(transition.parsedGuard, fields)) continue;
      if (transition.gate !== undefined) {
        const gate = gates.get(transition.gate);
        const result = gate ? await gate({ task, sections, from: status, to }) : { ok: false as const, reason: `unknown gate ${transition.gate}` };
        if (!result.ok) {
          refusals.push(result.reason);
          continue;
        }
      }
      return { kind: 'advance', to, reason: `${role} exited; ${transition.gate ? `gate ${transition.gate} passed` : 'no gate'}` };
    }
  }

  const missing = refusals[0] ?? 'no exit target applies';
  if (rule.otherwise === 'mark') return { kind: 'mark', reason: `${role} exited in ${status}; waiting for a human` };
  const crashCount = task.meta.crash_count + 1;
  const reason = `process exited without its artifact (${missing})`;
  if (crashCount >= rule.crashLimit && rule.crashTo !== undefined) {
    return { kind: 'escalate', to: rule.crashTo, crashCount, reason };
  }
  return { kind: 'crash', crashCount, respawn: rule.respawn, reason };
}
