import type { TaskRef, TransitionResult } from '../plugin/index.js';
import { OrangeError, TransitionRefused } from '../errors/index.js';
import type { Orange } from '../plugin/index.js';
import type { MergeOptions } from '../plugin/index.js';
import { parseSections, setSection } from '../task/index.js';
import type { Task, TaskMeta } from '../task/index.js';
import type { Workflow } from '../workflow/index.js';

// What a person does to a task from the CLI or the dashboard, written once so that both run the
// same checks in the same order and a refusal reads the same in both. Each operation that asks
// for confirmation has a `check…` half, run before asking: nobody confirms what cannot happen.

/**
 * What a cancel does from a status: `cancel` (→ cancelled), `stop` (a running pipeline task →
 * stopped, its checkpoint kept for `task resume`), `abandon` (a stopped one → failed: its
 * checkpoint's progress is given up and its worktree freed).
 */
export type CancelKind = 'cancel' | 'stop' | 'abandon';

/** The move a cancel makes: the status it goes to, and what that means. */
export interface CancelMove {
  readonly to: string;
  readonly kind: CancelKind;
}

/** A cancel that may happen: its move and the question a person confirms first (the CLI's and the dashboard's). */
export interface CancelCheck extends CancelMove {
  readonly question: string;
}

/**
 * The move a cancel would make from `status`, or null when the workflow has no such transition
 * (a finished task, a status the workflow cannot be cancelled from): what the dashboard offers `x` on.
 */
export function cancelMove(workflow: Workflow, status: string): CancelMove | null {
  const to = cancelStatus(workflow, status);
  if (workflow.between(status, to).length === 0) return null;
  return { to, kind: to === 'failed' ? 'abandon' : to === 'stopped' ? 'stop' : 'cancel' };
}

/** The confirmation a cancel asks for, saying what it will do to the task. */
export function cancelQuestion(meta: Pick<TaskMeta, 'id' | 'status' | 'branch'>, kind: CancelKind): string {
  switch (kind) {
    case 'abandon':
      return meta.status === 'stopped'
        ? `Abandon stopped task ${meta.id} (${meta.branch}): give up the progress in its checkpoint (the file is kept for inspection) and end it failed?`
        : `Abandon ${meta.status} task ${meta.id} (${meta.branch}): never merge its work (the branch is kept) and end it failed?`;
    case 'stop':
      return `Stop task ${meta.id} (${meta.status}, ${meta.branch}), keeping its checkpoint for orange task resume?`;
    case 'cancel':
      return `Cancel task ${meta.id} (${meta.status}, ${meta.branch})?`;
  }
}

/**
 * Refuses (with the engine's own reason) a cancel that the workflow does not allow from the task's
 * status; else says what the cancel will do and the question to confirm it with.
 */
export async function checkCancel(orange: Orange, task: Task): Promise<CancelCheck> {
  const ref = { project: task.meta.project, id: task.meta.id };
  const workflow = await orange.workflowFor(task.meta);
  const move = cancelMove(workflow, task.meta.status);
  if (move === null) {
    // No such transition: the engine refuses it, so the message is the transition's usual one. Only
    // from the status read: a task that moved meanwhile to one a cancel leaves is not cancelled unasked.
    await orange.engine.transition(ref, cancelStatus(workflow, task.meta.status), { cause: 'request', actor: 'person', expectFrom: task.meta.status });
    throw new OrangeError('E_NOT_ALLOWED', `task ${ref.id} cannot be cancelled from ${task.meta.status}`);
  }
  return { ...move, question: cancelQuestion(task.meta, move.kind) };
}

/**
 * Cancels a task: its agents are stopped and its worktree released (the workflow's cancel hooks).
 * A pipeline task is stopped instead (its checkpoint kept for `task resume`); one already stopped
 * is abandoned into `failed`, which frees its worktree so the task can be deleted.
 */
export async function cancelTask(orange: Orange, ref: TaskRef): Promise<TransitionResult> {
  const task = await orange.engine.readVerified(ref);
  const workflow = await orange.workflowFor(task.meta);
  const move = cancelMove(workflow, task.meta.status);
  // Without a move the engine refuses the target with its usual message.
  const target = move?.to ?? cancelStatus(workflow, task.meta.status);
  const reason = move?.kind === 'stop' ? 'cancelled' : move?.kind === 'abandon' ? 'abandoned' : undefined;
  return orange.engine.transition(ref, target, { cause: 'request', actor: 'person', ...(reason ? { reason } : {}) });
}

/**
 * Where a cancel goes from `status`, read from the workflow's states: `cancelled` where it has one;
 * in a workflow shaped like the pipeline (`stopped` and no `cancelled`) a running task is `stopped`
 * (its checkpoint kept for `task resume`, seed 002) and a stopped one `failed` (abandoned).
 */
export function cancelStatus(workflow: Workflow, status: string): string {
  const states = new Set(workflow.states);
  if (states.has('cancelled') || !states.has('stopped')) return 'cancelled';
  // A stopped task, or a completed one nobody will merge, is abandoned: it ends failed.
  return status === 'stopped' || (workflow.between(status, 'stopped').length === 0 && workflow.between(status, 'failed').length > 0) ? 'failed' : 'stopped';
}

/** Refuses to delete a task that is not finished. */
export async function checkDelete(orange: Orange, task: Task): Promise<void> {
  const { project, id, status } = task.meta;
  const workflow = await orange.workflowFor(task.meta);
  if (!workflow.isTerminal(status)) {
    throw new OrangeError('E_NOT_ALLOWED', `task ${id} is ${status}; only a finished task (done or cancelled) can be deleted — cancel it first`);
  }
}

/** Deletes a finished task (TASK.md, state and history), after stopping any session left of it. */
export async function deleteTask(orange: Orange, task: Task): Promise<void> {
  await checkDelete(orange, task);
  const { project, id, status } = task.meta;
  // A session the monitor has not reaped yet must not outlive its task. Killed (and verified
  // gone) first: if an agent survives, the error is reported and the task is still there.
  const runtime = orange.maybeSlot('runtime');
  if (runtime) await runtime.killSession(runtime.sessionName(task.meta));
  await orange.store.withTaskLock(project, id, () => orange.store.remove(project, id));
  orange.log.info('task deleted', { task: id, project, status });
}

/** A person's merge request: `force` also merges from a status the review has not passed yet. */
export interface MergeRequest {
  /** Take the workflow's forced move into done when the ordinary one does not exist (after a confirmation). */
  readonly force?: boolean;
}

/** What a merge would be: the task as read, and whether it needs the workflow's forced move. */
export interface MergeCheck {
  readonly task: Task;
  readonly forced: boolean;
}

/** Refuses to merge a task that may not move to done (checked before git is touched). */
export async function checkMerge(orange: Orange, ref: TaskRef, request: MergeRequest = {}): Promise<MergeCheck> {
  const task = await orange.engine.readVerified(ref);
  const workflow = await orange.workflowFor(task.meta);
  const { status } = task.meta;
  if (workflow.isTerminal(status)) {
    const merged = (await orange.store.history(ref.project, ref.id)).some((e) => e.type === 'task.merged');
    throw new OrangeError('E_NOT_ALLOWED', `task ${ref.id} is already ${status}${merged ? ' (merged)' : ''}; there is nothing left to merge`);
  }
  if (workflow.between(status, 'done').length > 0) return { task, forced: false };
  const forcible = workflow.forced(status, 'done').length > 0;
  if (forcible && request.force === true) return { task, forced: true };
  const hint = forcible ? `merge a task once its review passed, or force it: orange task merge ${ref.id} --force` : 'merge a task once its review passed';
  throw new TransitionRefused('E_ILLEGAL_TRANSITION', status, 'done', `task ${ref.id} cannot be merged from ${status} (${hint})`);
}

/** The outcome of `mergeTask`: the SCM's report and the move to done. */
export interface MergeOutcome {
  readonly merge: { readonly merged: boolean; readonly message: string };
  readonly result: TransitionResult;
}

/**
 * Merges a reviewed task's branch with the SCM plugin, records it, and moves the task to done. With
 * `force`, a task the review has not passed is merged as its branch stands and moved by the
 * workflow's forced transition (whose hooks stop its agents); the ledger marks both as forced.
 */
export async function mergeTask(orange: Orange, ref: TaskRef, options: MergeOptions, request: MergeRequest = {}): Promise<MergeOutcome> {
  const { task, forced } = await checkMerge(orange, ref, request);
  const scm = orange.slot('scm');
  const project = await orange.projects.get(ref.project);
  let merge: { readonly merged: boolean; readonly message: string } | null = null;
  const reason = forced ? `force-merged from ${task.meta.status}` : 'merged';
  // The merge is the move's effect: it runs only once the map, who may move, the guard, the gate
  // and every plugin's veto passed, under the task lock, so a refused move leaves git untouched.
  const result = await orange.engine.transition(ref, 'done', {
    cause: 'request',
    actor: 'person',
    reason,
    force: forced,
    expectFrom: task.meta.status,
    effect: async (current) => {
      merge = await scm.merge(current, project, options);
      if (!merge.merged) throw new OrangeError('E_SCM', merge.message);
      await orange.store.appendHistory(ref.project, ref.id, {
        type: 'task.merged',
        via: scm.name,
        strategy: options.strategy,
        message: merge.message,
        ...(forced ? { forced: true, from: current.meta.status } : {}),
      });
    },
  });
  if (!result.changed || merge === null) {
    throw new OrangeError('E_NOT_ALLOWED', `task ${ref.id} moved to ${result.from} meanwhile; nothing was merged`);
  }
  return { merge, result };
}

/** Pushes an unfinished task's branch and opens its pull request; returns the URL and the task as stored after. */
export async function openPullRequest(orange: Orange, ref: TaskRef): Promise<{ url: string; task: Task }> {
  const task = await orange.engine.readVerified(ref);
  const workflow = await orange.workflowFor(task.meta);
  if (workflow.isTerminal(task.meta.status)) {
    throw new OrangeError('E_NOT_ALLOWED', `task ${ref.id} is ${task.meta.status}; a pull request is only opened for an unfinished task`);
  }
  const { url } = await orange.slot('scm').createPullRequest(task, await orange.projects.get(ref.project));
  return { url, task: await orange.store.read(ref.project, ref.id) };
}

/**
 * A human asks for changes on a task in review (`reviewing → working`, whose `notify_worker` tells
 * the worker to read ## Review and ## Notes): the instructions, if any, are added to ## Notes in
 * the same write as the move, so a refused move (a plugin's veto) leaves TASK.md as it was.
 */
export async function requestChanges(orange: Orange, ref: TaskRef, instructions: string): Promise<TransitionResult> {
  const task = await orange.engine.readVerified(ref);
  const workflow = await orange.workflowFor(task.meta);
  if (task.meta.status !== 'reviewing' || workflow.between(task.meta.status, 'working').length === 0) {
    throw new TransitionRefused('E_ILLEGAL_TRANSITION', task.meta.status, 'working', `task ${ref.id} is ${task.meta.status}; changes are requested on a task in reviewing`);
  }
  const text = instructions.trim();
  // One stamp: the engine may apply the change more than once (checked, then written).
  const entry = `Changes requested (${new Date().toISOString()}):\n${text}`;
  const body = (current: string) => {
    const notes = parseSections(current).get('Notes')?.trim() ?? '';
    return setSection(current, 'Notes', notes ? `${notes}\n\n${entry}` : entry);
  };
  // Checked again under the task's lock: a task that left reviewing meanwhile (the monitor's CI
  // reaction, a person in another terminal) is refused, not moved from wherever it is now.
  const result = await orange.engine.transition(ref, 'working', { cause: 'request', actor: 'person', reason: 'changes requested', expectFrom: 'reviewing', ...(text === '' ? {} : { body }) });
  if (!result.changed) {
    throw new TransitionRefused('E_ILLEGAL_TRANSITION', result.from, 'working', `task ${ref.id} moved to ${result.from} meanwhile; changes are requested on a task in reviewing`);
  }
  return result;
}
