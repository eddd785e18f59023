import {
  cancelTask,
  checkCancel,
  checkDelete,
  checkMerge,
  deleteTask,
  mergeTask,
  Monitor,
  openPullRequest,
  OrangeError,
  requestChanges,
  type AgentRole,
  type CancelCheck,
  type DiffStat,
  type HistoryEvent,
  type Orange,
  type PullRequestReading,
  type TaskMeta,
  type TaskRef,
  type TransitionResult,
} from '@orange/core';

/** What the create form submits. */
export interface CreateRequest {
  readonly project: string;
  readonly branch: string;
  readonly summary: string;
  /** Null: the configured default harness. */
  readonly harness: string | null;
  /** `pending` starts the task's agent now; `reviewing` creates it for a human review (no agent). */
  readonly status: 'pending' | 'reviewing';
}

/**
 * Everything the dashboard does to tasks, as one interface: the keys call these and show the
 * returned sentence (or the error's) in the status bar. `OrangeActions` runs them through the
 * engine and the Orange instance's slots, the same functions the CLI's commands call.
 */
export interface DashboardActions {
  spawn(ref: TaskRef): Promise<string>;
  respawn(ref: TaskRef): Promise<string>;
  /** Creates the task; its sentence for the status bar and the new task (the dashboard selects it). */
  create(request: CreateRequest): Promise<{ readonly message: string; readonly ref: TaskRef }>;
  requestChanges(ref: TaskRef, instructions: string): Promise<string>;
  /** Answers a pipeline task awaiting clarification (`orange task clarify`): the answer goes to TASK.md and it is classified again. */
  clarify(ref: TaskRef, answer: string): Promise<string>;
  /**
   * Throws the refusal of a merge that cannot happen, before anyone is asked to confirm it; else
   * tells whether it would be a force-merge (a task the review has not passed yet).
   */
  checkMerge(ref: TaskRef): Promise<{ forced: boolean }>;
  merge(ref: TaskRef, force: boolean): Promise<string>;
  /** Opens the task's pull request (`created`), or returns the URL of the one it has. */
  pullRequest(ref: TaskRef): Promise<{ url: string; created: boolean }>;
  /**
   * The monitor's PR sync for one task (`R`): a pull request merged on GitHub finishes the task, a
   * closed one cancels it. `applied`: the sentence when it applied (or could not apply) a state,
   * null when there was nothing to apply; `read`: the pull request as the sync read it (its state
   * and, while open, its checks), null when it could not be read.
   */
  syncPullRequest(ref: TaskRef): Promise<{ applied: string | null; read: PullRequestReading | null }>;
  /** Throws the refusal of a cancel that cannot happen; else what it will do and the question to confirm it with. */
  checkCancel(ref: TaskRef): Promise<CancelCheck>;
  cancel(ref: TaskRef): Promise<string>;
  checkDelete(ref: TaskRef): Promise<void>;
  delete(ref: TaskRef): Promise<string>;
  /** The projects a task can be created in, and the installed harnesses (for the create form). */
  choices(): Promise<{ projects: string[]; harnesses: string[] }>;
  /** The whole TASK.md body (the `v` view). */
  taskFile(ref: TaskRef): Promise<string>;
  history(ref: TaskRef): Promise<HistoryEvent[]>;
  /** The agent's window now, or null. */
  capture(meta: TaskMeta, role: AgentRole): Promise<string | null>;
  diffStat(meta: TaskMeta): Promise<DiffStat | null>;
  /** The whole diff of the task's branch against its base (the diff view), or null without a worktree. */
  diff(meta: TaskMeta): Promise<string | null>;
}

/**
 * Engine calls a workflow plugin owns, handed over by whoever opens the dashboard: the CLI bundles
 * the built-in plugins (one copy, the one its config's plugins are), and the dashboard does not
 * depend on any of them.
 */
export interface WorkflowOperators {
  /** The pipeline plugin's `clarifyTask`, the code of `orange task clarify`. */
  readonly clarifyTask?: (orange: Orange, ref: TaskRef, answer: string) => Promise<TransitionResult>;
}

/** How long `R` waits for a monitor pass in progress (its own, or another process's) to end. */
const SYNC_WAIT_MS = 15_000;

/** The dashboard's actions on a real Orange instance. */
export class OrangeActions implements DashboardActions {
  constructor(
    private readonly orange: Orange,
    private readonly operators: WorkflowOperators = {},
  ) {}

  async spawn(ref: TaskRef): Promise<string> {
    const result = await this.orange.engine.spawn(ref, { actor: 'person' });
    return transitionLine(ref.id, result.from, result.to, result.failedHooks);
  }

  async respawn(ref: TaskRef): Promise<string> {
    const task = await this.orange.engine.respawn(ref);
    return `task ${ref.id}: agent restarted (${task.meta.status})`;
  }

  async create(request: CreateRequest): Promise<{ readonly message: string; readonly ref: TaskRef }> {
    const result = await this.orange.engine.createTask({
      actor: 'person',
      project: request.project,
      branch: request.branch.trim() || undefined,
      summary: request.summary,
      harness: request.harness,
      ...(request.status === 'reviewing' ? { status: 'reviewing', spawn: false } : { spawn: true }),
    });
    const { meta } = result.task;
    const ref = { project: meta.project, id: meta.id };
    if (result.queuedReason) return { ref, message: `created task ${meta.id} on ${meta.branch}; not started yet: ${result.queuedReason}` };
    if (result.failedHooks.length > 0) return { ref, message: `created task ${meta.id}, but ${result.failedHooks.join(', ')} failed; it is flagged for attention` };
    return { ref, message: `created task ${meta.id} on ${meta.branch} (${meta.status})` };
  }

  async requestChanges(ref: TaskRef, instructions: string): Promise<string> {
    const result = await requestChanges(this.orange, ref, instructions);
    return transitionLine(ref.id, result.from, result.to, result.failedHooks);
  }

  async clarify(ref: TaskRef, answer: string): Promise<string> {
    const { clarifyTask } = this.operators;
    if (!clarifyTask) throw new OrangeError('E_NOT_ALLOWED', `this dashboard was opened without the pipeline plugin's clarifyTask, so it cannot answer task ${ref.id}; use: orange task clarify ${ref.id} "answer"`);
    const result = await clarifyTask(this.orange, ref, answer);
    return transitionLine(ref.id, result.from, result.to, result.failedHooks);
  }

  async checkMerge(ref: TaskRef): Promise<{ forced: boolean }> {
    const { forced } = await checkMerge(this.orange, ref, { force: true });
    return { forced };
  }

  async merge(ref: TaskRef, force: boolean): Promise<string> {
    const { merge, result } = await mergeTask(this.orange, ref, { strategy: 'ff', local: false }, { force });
    return `${merge.message}; ${transitionLine(ref.id, result.from, result.to, result.failedHooks)}`;
  }

  async pullRequest(ref: TaskRef): Promise<{ url: string; created: boolean }> {
    const task = await this.orange.store.read(ref.project, ref.id);
    if (task.meta.pr_url) return { url: task.meta.pr_url, created: false };
    const { url } = await openPullRequest(this.orange, ref);
    return { url, created: true };
  }

  async syncPullRequest(ref: TaskRef): Promise<{ applied: string | null; read: PullRequestReading | null }> {
    // The same code and the same pass lock as the monitor's passes: R never races one of them.
    const { applied, read } = await new Monitor(this.orange).syncPullRequest(ref, { waitMs: SYNC_WAIT_MS });
    if (!applied) return { applied: null, read };
    const line = applied.to
      ? `pull request of ${ref.id} ${applied.state}: task ${ref.id} → ${applied.to}`
      : `pull request of ${ref.id} ${applied.state}, which its status cannot follow (see orange log)`;
    return { applied: line, read };
  }

  async checkCancel(ref: TaskRef): Promise<CancelCheck> {
    return checkCancel(this.orange, await this.orange.store.read(ref.project, ref.id));
  }

  async cancel(ref: TaskRef): Promise<string> {
    const result = await cancelTask(this.orange, ref);
    return transitionLine(ref.id, result.from, result.to, result.failedHooks);
  }

  async checkDelete(ref: TaskRef): Promise<void> {
    await checkDelete(this.orange, await this.orange.store.read(ref.project, ref.id));
  }

  async delete(ref: TaskRef): Promise<string> {
    await deleteTask(this.orange, await this.orange.store.read(ref.project, ref.id));
    return `deleted task ${ref.id}`;
  }

  async choices(): Promise<{ projects: string[]; harnesses: string[] }> {
    const projects = (await this.orange.projects.list()).map((p) => p.name);
    const harnesses: string[] = [];
    for (const harness of this.orange.harnesses.values()) if (await harness.installed().catch(() => false)) harnesses.push(harness.name);
    return { projects, harnesses };
  }

  async taskFile(ref: TaskRef): Promise<string> {
    return (await this.orange.store.read(ref.project, ref.id)).body;
  }

  history(ref: TaskRef): Promise<HistoryEvent[]> {
    return this.orange.store.history(ref.project, ref.id);
  }

  async capture(meta: TaskMeta, role: AgentRole): Promise<string | null> {
    const runtime = this.orange.maybeSlot('runtime');
    return runtime?.capture ? runtime.capture(meta, role) : null;
  }

  async diffStat(meta: TaskMeta): Promise<DiffStat | null> {
    const workspaces = this.orange.maybeSlot('workspaces');
    return workspaces?.diffStat ? workspaces.diffStat(meta) : null;
  }

  async diff(meta: TaskMeta): Promise<string | null> {
    const workspaces = this.orange.maybeSlot('workspaces');
    return workspaces?.diff ? workspaces.diff(meta) : null;
  }
}

function transitionLine(id: string, from: string, to: string, failedHooks: readonly string[]): string {
  const line = from === to ? `task ${id}: already ${to}` : `task ${id}: ${from} → ${to}`;
  return failedHooks.length > 0 ? `${line} (but ${failedHooks.join(', ')} failed; flagged for attention)` : line;
}
