import { OrangeError, TransitionRefused, type ErrorCode } from '../errors/index.js';
import type { ActionFailure, CreateTaskInput, CreateTaskResult, Orange, TaskRef, TransitionResult } from '../plugin/index.js';
import { assertBranchName, assertProjectName, isHeld, newTaskId, newTaskMeta } from '../store/index.js';
import { inertHeadings, setSection, type AgentRole, type Task, type TaskMeta } from '../task/index.js';
import { oneLineSummary } from '../text/index.js';
import type { Actor } from '../workflow/index.js';
import { failedHooksNote, type Deferred, type Mover } from './move.js';

// How tasks and their agents start: creation (and its first move), a queued task's start, and an
// agent started again for a task whose agent is gone.
/** Creates a task, then (unless `spawn: false`) starts it: pending → start, or the create actions. */
export async function createTask(mover: Mover, input: CreateTaskInput): Promise<CreateTaskResult> {
  const projectName = assertProjectName(input.project);
  const project = await mover.orange.projects.get(projectName);
  // A task keeps the workflow it is created with: the one asked for, else its project's.
  const workflow = input.workflow !== undefined ? mover.orange.workflow(input.workflow) : await mover.orange.workflowForProject(projectName);
  const summary = oneLineSummary(input.summary ?? '');
  // An empty summary means the requirements are unclear (seed 003), where the workflow has that state.
  const status = input.status ?? (summary === '' && workflow.state('clarification') ? 'clarification' : workflow.initial);
  const allowed = Object.keys(workflow.definition.create);
  if (!allowed.includes(status)) {
    throw new OrangeError('E_INVALID_INPUT', `a task cannot be created in status "${status}" (allowed: ${allowed.join(', ')})`);
  }
  const declared = workflow.definition.fields;
  for (const name of Object.keys(input.fields ?? {})) {
    if (!Object.hasOwn(declared, name)) {
      throw new OrangeError('E_INVALID_INPUT', `workflow ${workflow.name} has no field "${name}" (its fields: ${Object.keys(declared).join(', ') || 'none'})`, {
        field: name,
        workflow: workflow.name,
      });
    }
  }
  const id = newTaskId();
  const branch = assertBranchName(input.branch ?? `orange-tasks/${id}`);
  const meta = newTaskMeta({
    ...(declared as Partial<TaskMeta>),
    ...(input.fields as Partial<TaskMeta> | undefined),
    id,
    project: projectName,
    branch,
    status,
    workflow: workflow.name,
    summary,
    harness: input.harness || null,
    review_harness: input.reviewHarness || null,
    effort: input.effort ?? null,
    review_effort: input.reviewEffort ?? null,
    ...(input.issue ? { issue: input.issue.ref, issue_url: input.issue.url } : {}),
  });
  // A task that is to start now, on a project it cannot start in, is not created at all.
  if (input.spawn !== false) await mover.orange.maybeSlot('workspaces')?.baseRef?.(project);
  // The context is data (an issue's body may hold `## Review`): it cannot open sections of its own.
  const body = input.context && input.context.trim() !== '' ? setSection('', 'Context', inertHeadings(input.context)) : '';
  // Branch uniqueness needs a project-wide lock: two creates for one branch must not both win.
  const task = await mover.orange.store.withProjectLock(projectName, async () => {
    const { tasks } = await mover.orange.store.list(projectName);
    const holder = await firstOpen(mover.orange, tasks.filter((t) => t.meta.branch === branch).map((t) => t.meta));
    if (holder) throw new OrangeError('E_TASK_EXISTS', `branch ${branch} already has task ${holder.id} (${holder.status})`);
    // Put aside in the initial status (--no-spawn): out of the queue until someone spawns it.
    const created = await mover.orange.store.create({ meta, body }, { held: input.spawn === false && status === workflow.initial });
    const issue = input.issue;
    if (issue) await mover.orange.store.withTaskLock(projectName, id, () => mover.record(created, { type: 'issue.linked', ...issue }));
    return created;
  });
  mover.orange.log.info('task created', { task: id, project: projectName, status, branch, ...(input.issue ? { issue: input.issue.ref } : {}) });
  await mover.safely('taskCreated', () => mover.orange.hooks.taskCreated.promise({ orange: mover.orange, task }));
  // Read again: a taskCreated tap may have written it (the pipeline's sets its budget).
  if (input.spawn === false) return { task: await mover.orange.store.read(projectName, id), spawned: false, failedHooks: [], failures: [] };

  if (status === workflow.initial) {
    try {
      const result = await mover.transition({ project: projectName, id }, workflow.start, { cause: 'spawn', actor: input.actor ?? 'orange' });
      return { task: result.task, spawned: true, failedHooks: result.failedHooks, failures: result.failures };
    } catch (error) {
      if (error instanceof TransitionRefused && error.code === 'E_VETOED') {
        return { task: await mover.orange.store.read(projectName, id), spawned: false, queuedReason: error.details.reason as string, failedHooks: [], failures: [] };
      }
      throw await notStarted(mover, { project: projectName, id }, error);
    }
  }
  const hooks = workflow.createHooks(status) ?? [];
  if (hooks.length === 0) return { task, spawned: false, failedHooks: [], failures: [] };
  const deferred: Deferred[] = [];
  const created = await mover.orange.store.withTaskLock(projectName, id, async () => {
    const { task: after, failed, failures } = await mover.runActions(task, workflow, hooks, { from: null, to: status, cause: 'create' }, deferred);
    const flagged = failed.length ? await mover.writeFresh(after, { attention: failedHooksNote(failed) }) : after;
    return { task: flagged, failed, failures };
  });
  await mover.runDeferred(deferred);
  return { task: created.task, spawned: true, failedHooks: created.failed, failures: created.failures };
}

/**
 * A created task whose start failed (not a queue's refusal): it stays in its initial status, flagged
 * with the reason so that lists and the dashboard show it, and the error says so and what to do.
 */
async function notStarted(mover: Mover, ref: TaskRef, error: unknown): Promise<unknown> {
  const reason = error instanceof Error ? error.message : String(error);
  const store = mover.orange.store;
  await store.withTaskLock(ref.project, ref.id, () => store.update(ref.project, ref.id, { attention: `not started: ${reason}` })).catch(() => undefined);
  // Not an OrangeError: a bug, reported as one.
  if (!(error instanceof OrangeError)) return error;
  return new OrangeError(error.code, `task ${ref.id} was created but not started: ${reason}; once that is fixed start it with orange task spawn ${ref.id}, or remove it with orange task delete ${ref.id}`, {
    ...error.details,
    task: ref.id,
  });
}

/**
 * Starts a waiting task: initial → start (may be vetoed, e.g. when the pool is exhausted). A task
 * put aside (`--no-spawn`) joins the queue first, so a refused start still starts it when a
 * worktree frees.
 */
export async function spawn(mover: Mover, ref: TaskRef, options: { readonly actor?: Actor } = {}): Promise<TransitionResult> {
  const task = await mover.orange.store.read(ref.project, ref.id);
  const workflow = await mover.orange.workflowFor(task.meta);
  if (task.meta.status !== workflow.initial) {
    throw new OrangeError('E_NOT_ALLOWED', `task ${ref.id} is ${task.meta.status}; only a ${workflow.initial} task can be spawned (use respawn for a dead agent)`);
  }
  await mover.orange.store.withTaskLock(ref.project, ref.id, async () => {
    if (isHeld(await mover.orange.store.history(ref.project, ref.id))) await mover.record(task, { type: 'task.queued' });
  });
  return mover.transition(ref, workflow.start, { cause: 'spawn', actor: options.actor ?? 'orange' });
}

/**
 * Starts the responsible agent again for an active task whose agent is dead
 * (`orange task respawn`). Refused when the agent is still alive.
 */
export async function respawn(mover: Mover, ref: TaskRef): Promise<Task> {
  // A workflow whose agent is not a harness (the pipeline's driver) restarts through its plugin.
  const seen = await mover.readVerified(ref);
  const taken = await mover.orange.hooks.respawn.promise({ orange: mover.orange, task: seen, workflow: await mover.orange.workflowFor(seen.meta) });
  if (taken) return taken;
  const deferred: Deferred[] = [];
  const task = await mover.orange.store.withTaskLock(ref.project, ref.id, async () => {
    const current = await mover.readVerified(ref);
    const workflow = await mover.orange.workflowFor(current.meta);
    const status = current.meta.status;
    if (!workflow.isActive(status)) {
      throw new OrangeError('E_NOT_ALLOWED', `task ${ref.id} is ${status}; only an active task can be respawned`);
    }
    const role: AgentRole = workflow.state(status)?.agent ?? 'worker';
    const runtime = mover.orange.maybeSlot('runtime');
    if (runtime && (await runtime.snapshot()).isAlive(current.meta, role)) {
      throw new OrangeError('E_NOT_ALLOWED', `the ${role} of task ${ref.id} is still running; attach with: orange task attach ${ref.id}`);
    }
    const actions = [...(current.meta.workspace ? [] : ['acquire_workspace']), role === 'worker' ? 'spawn_agent' : 'spawn_reviewer'];
    const { task: after, failed, failures } = await mover.runActions(current, workflow, actions, { from: status, to: status, cause: 'respawn' }, deferred);
    if (failed.length) {
      await mover.writeFresh(after, { attention: failedHooksNote(failed) });
      // The action's own error is the answer (a missing harness, an exhausted pool), not only its name.
      const reasons = failures.map((f) => `${f.action}: ${f.message}`).join('; ');
      throw new OrangeError(failedCode(failures), `respawn of task ${ref.id} failed: ${reasons}`, { failedHooks: failed, failures });
    }
    return mover.writeFresh(after, { attention: null });
  });
  await mover.runDeferred(deferred);
  return task;
}

/** The code of the first failure that has one (E_HARNESS, E_POOL_EXHAUSTED, …), else E_RUNTIME. */
function failedCode(failures: readonly ActionFailure[]): ErrorCode {
  return (failures.find((f) => f.code !== undefined)?.code as ErrorCode | undefined) ?? 'E_RUNTIME';
}

/** The first of `metas` whose task is not finished in its own workflow (a branch's holder), if any. */
export async function firstOpen(orange: Orange, metas: readonly TaskMeta[]): Promise<TaskMeta | undefined> {
  for (const meta of metas) if (!(await orange.workflowFor(meta)).isTerminal(meta.status)) return meta;
  return undefined;
}
