import type { Orange } from '../plugin/index.js';
import type { AgentRole, Task } from '../task/index.js';
import { renderPrompt, type Workflow } from '../workflow/index.js';

/** Renders the prompt for an agent of `role` spawned into the task's current status. */
export async function agentPrompt(orange: Orange, workflow: Workflow, task: Task, role: AgentRole, respawn: boolean): Promise<string> {
  const fields = task.meta as Record<string, unknown>;
  const state = workflow.state(task.meta.status);
  const ref = respawn ? (state?.respawnPrompt ?? state?.prompt) : (state?.prompt ?? state?.respawnPrompt);
  const template =
    (state?.agent === role || state?.agent === null ? workflow.resolvePrompt(ref, fields) : undefined) ??
    fallbackPrompt(workflow, role, respawn, fields);
  const text = renderPrompt(template, fields);
  return orange.hooks.prompt.promise(text, { orange: orange, task, role, respawn });
}

/** A role's prompt when the current state has none for it (e.g. a worker respawned during review). */
function fallbackPrompt(workflow: Workflow, role: AgentRole, respawn: boolean, fields: Record<string, unknown>): string {
  for (const name of workflow.states) {
    const state = workflow.state(name);
    if (state?.agent !== role) continue;
    const found = workflow.resolvePrompt(respawn ? (state.respawnPrompt ?? state.prompt) : state.prompt, fields);
    if (found) return found;
  }
  return '# Task: {summary}\n\nProject: {project}\nBranch: {branch}\nStatus: {status}\n\nRead TASK.md and continue.\n';
}
