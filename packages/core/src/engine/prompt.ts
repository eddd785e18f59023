import type { Orange } from '../plugin/index.js';
import type { AgentRole, Task } from '../task/index.js';
import { renderPrompt, type Workflow } from '../workflow/index.js';

/** Renders the prompt for an agent of `role` spawned into the task's current status. */
export async function agentPrompt(orange: Orange, workflow: Workflow, task: Task, role: AgentRole, respawn: boolean): Promise<string> {
  const fields: Record<string, unknown> = { base: await baseOf(orange, task.meta.project), ...task.meta };
  const state = workflow.state(task.meta.status);
  const ref = respawn ? (state?.respawnPrompt ?? state?.prompt) : (state?.prompt ?? state?.respawnPrompt);
  const template =
    (state?.agent === role || state?.agent === null ? workflow.resolvePrompt(ref, fields) : undefined) ??
    fallbackPrompt(workflow, role, respawn, fields);
  const text = renderPrompt(template, fields);
  return orange.hooks.prompt.promise(text, { orange: orange, task, role, respawn });
}

/**
 * `{base}`: what the task's changes are compared against, as the workspaces plugin says (its
 * remote's default branch, or the local one without a remote); the project's default branch when
 * it cannot say. `origin/HEAD` is not it: a remote added by hand has none.
 */
async function baseOf(orange: Orange, projectName: string): Promise<string | null> {
  const project = await orange.projects.get(projectName).catch(() => null);
  if (project === null) return null;
  const slot = orange.maybeSlot('workspaces');
  return (await slot?.baseRef?.(project).catch(() => undefined)) ?? project.default_branch;
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
