import { OrangeError } from '../errors/index.js';
import type { RequestResult, TaskEdit, TaskRef, TaskRequest, TransitionOptions } from '../plugin/index.js';
import { assertBranchName } from '../store/index.js';
import type { Task, TaskMeta } from '../task/index.js';
import { oneLineSummary } from '../text/index.js';
import type { Deferred, Mover } from './move.js';
import { firstOpen } from './create.js';
import { checkSection } from './section-check.js';

// What changes a task besides its status: its summary and branch, one section of its body (an
// agent's artifact), and a repair of fields someone forged in TASK.md.
/**
 * Changes a task's summary and/or branch (`orange task update --summary/--branch`). A branch
 * is renamed in the task's worktree by the workspace provider (which, given `null`, adopts the
 * branch the agent already switched to); a branch another live task holds is refused.
 */
export async function edit(mover: Mover, ref: TaskRef, changes: TaskEdit): Promise<{ task: Task; changed: string[] }> {
  return mover.orange.store.withTaskLock(ref.project, ref.id, async () => editLocked(mover, await mover.readVerified(ref), changes));
}

/**
 * A request from the CLI: a status change and/or an edit, checked and applied in one critical
 * section, so a refused request changes nothing whatever runs beside it. The status change is
 * checked (map, guard, gate, vetoes) before anything is written; then the edit, then the transition.
 */
export async function request(mover: Mover, ref: TaskRef, request: TaskRequest): Promise<RequestResult> {
  const deferred: Deferred[] = [];
  const result = await mover.orange.store.withTaskLock(ref.project, ref.id, async (): Promise<RequestResult> => {
    const task = await mover.readVerified(ref);
    const options: TransitionOptions = { cause: request.cause ?? 'request', actor: request.actor ?? 'orange', ...(request.reason ? { reason: request.reason } : {}) };
    const prepared = request.status === undefined ? null : await mover.prepareTransition(task, request.status, options);
    const editing = request.summary !== undefined || request.branch !== undefined;
    const edited = editing ? await editLocked(mover, task, { summary: request.summary, branch: request.branch }) : { task, changed: [] };
    if (prepared === null) return { task: edited.task, edited: edited.changed, transition: null };
    const event = { ...prepared.event, task: edited.task };
    const transition = await mover.applyTransition({ ...prepared, event }, deferred);
    return { task: transition.task, edited: edited.changed, transition };
  });
  await mover.runDeferred(deferred);
  return result;
}

async function editLocked(mover: Mover, task: Task, changes: TaskEdit): Promise<{ task: Task; changed: string[] }> {
  const ref = { project: task.meta.project, id: task.meta.id };
  const patch: Partial<TaskMeta> = {};
  if (changes.summary !== undefined) {
    const summary = oneLineSummary(changes.summary);
    if (summary !== task.meta.summary) patch.summary = summary;
  }
  if (changes.branch !== undefined) {
    const wanted = changes.branch === null ? null : assertBranchName(changes.branch);
    // Before the provider renames anything in git.
    if (wanted !== null) await refuseHeldBranch(mover, task, wanted);
    const provider = mover.orange.maybeSlot('workspaces');
    let branch: string;
    // The provider refuses a name that exists already, locally or on a remote: a task's branch is
    // its own, and merging it deletes it on the remote.
    if (task.meta.workspace && provider?.renameBranch) branch = await provider.renameBranch(task.meta, wanted);
    else if (wanted !== null) {
      const taken = await provider?.branchTaken?.(task.meta.project, wanted);
      if (taken) throw new OrangeError('E_WORKSPACE', `a branch named ${wanted} already exists (${taken}); pick another name`);
      branch = wanted;
    }
    else throw new OrangeError('E_INVALID_INPUT', `task ${ref.id} has no worktree to read the branch from; name it: --branch NAME`);
    // An adopted branch (one the agent switched to with git) may be a name a queued task holds
    // without a worktree yet: no git branch of that name exists for the provider to find.
    if (wanted === null && branch !== task.meta.branch) await refuseHeldBranch(mover, task, branch);
    if (branch !== task.meta.branch) patch.branch = branch;
  }
  const changed = Object.keys(patch);
  if (changed.length === 0) return { task, changed };
  const written = await mover.orange.store.update(ref.project, ref.id, patch);
  const diff = Object.fromEntries(changed.map((k) => [k, { from: (task.meta as Record<string, unknown>)[k], to: (patch as Record<string, unknown>)[k] }]));
  await mover.record(written, { type: 'task.updated', ...diff });
  mover.orange.log.info('task updated', { task: ref.id, ...diff });
  return { task: written, changed };
}

/** Refuses a branch name another open task has. */
async function refuseHeldBranch(mover: Mover, task: Task, name: string): Promise<void> {
  const { tasks } = await mover.orange.store.list(task.meta.project);
  const holder = await firstOpen(mover.orange, tasks.filter((t) => t.meta.id !== task.meta.id && t.meta.branch === name).map((t) => t.meta));
  if (holder) throw new OrangeError('E_TASK_EXISTS', `branch ${name} already has task ${holder.id} (${holder.status})`);
}

/**
 * Replaces one `## name` section of a task's TASK.md body (appending it when missing) under the
 * task lock, keeping every other byte and any concurrent edit of the rest of the body
 * (`orange task section set`): agents write artifacts without editing the file with regexes.
 * (An action or an afterTransition tap, which run under the lock, use their own `writeSection`.)
 */
export async function writeSection(mover: Mover, ref: TaskRef, name: string, content: string): Promise<Task> {
  checkSection(name, content);
  return mover.orange.store.withTaskLock(ref.project, ref.id, () => mover.writeSectionLocked(ref, name, content));
}

/**
 * Restores every engine-owned field TASK.md shows forged (and a status the ledger disagrees with)
 * to its value of record, keeping the body and the free fields; returns what was restored.
 */
export async function repair(mover: Mover, ref: TaskRef): Promise<{ task: Task; from: string; to: string; repaired: boolean; fields: string[] }> {
  return mover.orange.store.withTaskLock(ref.project, ref.id, async () => {
    // A state.json that cannot be read is no record: it goes aside, and the task is read from
    // TASK.md with its status checked against the ledger, as a task from before state files is.
    const aside = await mover.orange.store.setAsideUnreadableState(ref.project, ref.id);
    if (aside) mover.orange.log.warn('unreadable state.json set aside', { task: ref.id, file: aside });
    const { task, tampered } = await mover.orange.store.inspect(ref.project, ref.id, { acceptForeign: true });
    const ledger = await mover.orange.store.ledgerStatus(ref.project, ref.id);
    const shown = tampered.find((t) => t.field === 'status')?.found;
    const from = typeof shown === 'string' ? shown : task.meta.status;
    const to = ledger ?? task.meta.status;
    const fields = [...new Set([...tampered.map((t) => t.field), ...(to !== task.meta.status ? ['status'] : [])])];
    if (fields.length === 0) return { task, from: to, to, repaired: false, fields };
    const repaired = await mover.orange.store.restore(ref.project, ref.id, to);
    await mover.record(repaired, { type: 'status.repaired', from, to, fields });
    mover.orange.log.warn('tampered task repaired', { task: ref.id, from, to, fields });
    return { task: repaired, from, to, repaired: true, fields };
  });
}
