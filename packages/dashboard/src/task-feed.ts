import {
  isOrangeError,
  pullRequestReading,
  readPullRequest,
  type AgentRole,
  type ListedTask,
  type Orange,
  type PullRequestReading,
  type RuntimeSnapshot,
  type TaskMeta,
  type Workflow,
} from '@orange/core';
import { WorktreeWatcher } from './worktree-watcher.js';
import { livenessOf, pullRequestView, rowOf, type Liveness, type PullRequestView, type TaskRow } from './task-row.js';
import { TaskWatcher } from './task-watcher.js';

/** What the screen is drawn from: every task of the scope, as rows keyed by task id. */
export interface FeedSnapshot {
  readonly rows: ReadonlyMap<string, TaskRow>;
  /** False until the first listing is in. */
  readonly loaded: boolean;
  /** Tasks whose files could not be read. */
  readonly unreadable: number;
  /** Bumped for a task each time its files change (the detail pane re-reads its history then). */
  readonly revisions: ReadonlyMap<string, number>;
  /** Why the tasks could not be listed (the screen says it instead of waiting forever). */
  readonly error?: string;
}

/** A source of snapshots the dashboard subscribes to (`useSyncExternalStore`). */
export interface TaskSource {
  snapshot(): FeedSnapshot;
  subscribe(listener: () => void): () => void;
}

export interface TaskFeedOptions {
  /** Only this project's tasks; all projects when undefined. */
  readonly project?: string;
  /** How long file events are gathered before the changed tasks are read again. */
  readonly debounceMs?: number;
  /** How long a task read as edited by hand must stay so before its ⚠ is shown (default 1000 ms). */
  readonly tamperConfirmMs?: number;
  /** How long a worktree's changes are gathered before its diff stat is read again (default 500 ms). */
  readonly worktreeDebounceMs?: number;
  /** How often agent liveness is read from the runtime (one tmux call). */
  readonly livenessMs?: number;
  /** How often AHEAD / CHANGES of every active task are read again anyway (the backstop of the worktree watcher; default 60 s). */
  readonly diffMs?: number;
  /** The least time between two SCM reads of one pull request by the feed itself (default: the config's pollIntervalMs). */
  readonly pullRequestMs?: number;
}

const ROLES: readonly AgentRole[] = ['worker', 'reviewer'];

/**
 * Follows the task files: one listing from the store (its per-project index serves it), then a
 * watcher on the tasks folder (`TaskWatcher`) that re-reads only the tasks whose files changed. Liveness comes
 * from the runtime slot, AHEAD / CHANGES from the workspace slot. PR states come from what the
 * monitor's pass of this dashboard read (`knowPullRequests`); the SCM is asked here only when
 * another process runs the pass (`refreshPullRequests`).
 */
export class TaskFeed implements TaskSource {
  /** Resolves once the first listing is on screen (or could not be made). */
  readonly loaded: Promise<void>;
  private markLoaded: () => void = () => undefined;
  private rows = new Map<string, TaskRow>();
  private revisions = new Map<string, number>();
  private current: FeedSnapshot = { rows: new Map(), loaded: false, unreadable: 0, revisions: new Map() };
  private readonly listeners = new Set<() => void>();
  private readonly workflows = new Map<string, Promise<Workflow>>();
  private readonly pending = new Map<string, { project: string; id: string }>();
  private liveness: RuntimeSnapshot | null = null;
  /** What is known of each task's pull request (by task id), whoever read it. */
  private readonly pullRequests = new Map<string, PullRequestView>();
  /** When the feed itself last asked the SCM about a task's pull request. */
  private readonly pullRequestAsked = new Map<string, number>();
  private pullRequestsRunning = false;
  private unreadable = 0;
  private debounce: NodeJS.Timeout | undefined;
  private worktrees: WorktreeWatcher | undefined;
  /** When each task was first read as edited by hand (not shown until a later read agrees), and the re-read pending. */
  private readonly suspected = new Map<string, { readonly since: number; recheck: NodeJS.Timeout | undefined }>();
  private timers: NodeJS.Timeout[] = [];
  private watcher: TaskWatcher | undefined;
  private stopped = false;
  private diffRunning = false;
  /** Listings and re-reads, one at a time: a read that started later never lands before an earlier one. */
  private reads: Promise<void> = Promise.resolve();

  constructor(
    private readonly orange: Orange,
    private readonly options: TaskFeedOptions = {},
  ) {
    this.loaded = new Promise((resolve) => (this.markLoaded = resolve));
  }

  snapshot(): FeedSnapshot {
    return this.current;
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Lists the tasks (the first screen), then starts following them. */
  async start(): Promise<void> {
    try {
      await this.reload();
    } catch (error) {
      this.current = { ...this.current, loaded: true, error: error instanceof Error ? error.message : String(error) };
      for (const listener of this.listeners) listener();
      this.markLoaded();
      return;
    }
    if (this.stopped) return;
    await this.watch();
    const livenessMs = this.options.livenessMs ?? 2000;
    this.timers.push(setInterval(() => void this.refreshLiveness(), livenessMs));
    // The diff stat follows the worktrees themselves; the slow pass is the backstop (a watch the
    // system refused, a worktree replaced under the watcher).
    this.worktrees = new WorktreeWatcher((id) => void this.refreshDiff(id), this.options.worktreeDebounceMs ?? 500);
    this.syncWorktrees();
    this.timers.push(setInterval(() => void this.refreshDiffs(), this.options.diffMs ?? 60_000));
    void this.refreshDiffs();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearInterval(timer);
    clearTimeout(this.debounce);
    this.watcher?.close();
    this.worktrees?.close();
  }

  /** Reads every task of the scope again (the first screen, and after the watcher lost track). */
  reload(): Promise<void> {
    return this.serially(() => this.reloadNow());
  }

  /**
   * Shows pull requests as they were just read — by this dashboard's monitor pass, by R, or opened
   * by p — without asking the SCM again.
   */
  knowPullRequests(readings: readonly PullRequestReading[]): void {
    let changed = false;
    for (const reading of readings) {
      this.pullRequests.set(reading.task, pullRequestView(reading));
      const row = this.rows.get(reading.task);
      const shown = row && this.withPullRequest(row);
      if (row && shown !== row) {
        this.rows.set(reading.task, shown as TaskRow);
        changed = true;
      }
    }
    if (changed) this.publish();
  }

  /** Re-reads one task now (after an action of this dashboard, without waiting for the watcher). */
  async refreshTask(project: string, id: string): Promise<void> {
    this.pending.set(id, { project, id });
    await this.flush();
  }

  /**
   * For a turn whose pass another process ran (its reads are not here): the pull request of every
   * unfinished task that has one, asked of the SCM, and of a finished task last seen open (a pass
   * that just merged it). Each at most once per `pullRequestMs`, one round at a time.
   */
  async refreshPullRequests(): Promise<void> {
    const scm = this.orange.maybeSlot('scm');
    if (!scm || this.pullRequestsRunning) return;
    this.pullRequestsRunning = true;
    try {
      const every = this.options.pullRequestMs ?? this.orange.config.pollIntervalMs;
      for (const row of [...this.rows.values()]) {
        if (this.stopped) return;
        if (!row.meta.pr_url || (row.terminal && row.pr?.state !== 'open')) continue;
        const asked = this.pullRequestAsked.get(row.meta.id);
        if (asked !== undefined && Date.now() - asked < every) continue;
        this.pullRequestAsked.set(row.meta.id, Date.now());
        try {
          const { state, feedback } = await readPullRequest(scm, row, await this.orange.projects.get(row.meta.project));
          this.knowPullRequests([pullRequestReading(row, state, feedback)]);
        } catch {
          // The column keeps what it showed; the next turn asks again.
        }
      }
    } finally {
      this.pullRequestsRunning = false;
    }
  }

  private async watch(): Promise<void> {
    const watcher = new TaskWatcher(
      this.orange.paths,
      (project, id) => {
        this.pending.set(id, { project, id });
        clearTimeout(this.debounce);
        this.debounce = setTimeout(() => void this.flush(), this.options.debounceMs ?? 30);
      },
      // Out of inotify watches: the listing (served by the store's index) is polled instead.
      () => this.timers.push(setInterval(() => void this.reload().catch(() => undefined), 2000)),
    );
    this.watcher = watcher;
    await watcher.start(this.options.project);
    // What changed between the first listing and the last watch is caught by listing once more.
    if (!this.stopped) await this.reload().catch(() => undefined);
  }

  /**
   * Runs `read` after every read queued before it. The debounce timer, `refreshTask` and the
   * listings all read the store; run side by side, a slow older read could land last and put a
   * stale row back on screen.
   */
  private serially(read: () => Promise<void>): Promise<void> {
    const run = this.reads.then(read, read);
    this.reads = run.catch(() => undefined);
    return run;
  }

  private async reloadNow(): Promise<void> {
    // The runtime is asked while the store lists: the first screen waits for the slower of the two.
    const [{ tasks, unreadable }, liveness] = await Promise.all([this.orange.store.list(this.options.project), this.readLiveness()]);
    this.unreadable = unreadable.length;
    this.liveness = liveness;
    const next = new Map<string, TaskRow>();
    for (const task of tasks) {
      const previous = this.rows.get(task.meta.id);
      next.set(task.meta.id, newer(previous, this.rowIn(await this.workflowOf(task.meta), task, previous)));
    }
    this.rows = next;
    this.publish();
  }

  /** Reads the changed tasks again; a task whose directory is gone leaves the table. */
  private flush(): Promise<void> {
    return this.serially(() => this.flushNow());
  }

  private async flushNow(): Promise<void> {
    const changed = [...this.pending.values()];
    this.pending.clear();
    if (changed.length === 0 || this.stopped) return;
    for (const { project, id } of changed) {
      try {
        const { task, tampered } = await this.orange.store.inspect(project, id);
        const listed: ListedTask = { meta: task.meta, tampered: tampered.map((f) => f.field) };
        const row = await this.row(listed, this.rows.get(id));
        // Looked up after the read: the map may have been replaced meanwhile (liveness, a listing).
        this.rows.set(id, newer(this.rows.get(id), row));
      } catch (error) {
        if (isOrangeError(error) && error.code === 'E_TASK_NOT_FOUND') this.rows.delete(id);
        // Anything else (a file being rewritten, a forged one): the row keeps what was last read.
      }
      this.revisions.set(id, (this.revisions.get(id) ?? 0) + 1);
    }
    // A status change often means an agent started or stopped.
    this.liveness = await this.readLiveness();
    this.rows = new Map([...this.rows].map(([id, row]) => [id, this.withLiveness(row)]));
    this.publish();
  }

  private async refreshLiveness(): Promise<void> {
    const before = this.liveness;
    this.liveness = await this.readLiveness();
    if (this.liveness === before) return;
    let changed = false;
    const next = new Map<string, TaskRow>();
    for (const [id, row] of this.rows) {
      const updated = this.withLiveness(row);
      changed ||= updated.liveness !== row.liveness || updated.alive.length !== row.alive.length;
      next.set(id, updated);
    }
    if (!changed) return;
    this.rows = next;
    this.publish();
  }

  /** The worktrees of the tasks shown that are still at work: those the watcher follows. */
  private syncWorktrees(): void {
    if (!this.worktrees) return;
    const worktrees = new Map<string, string>();
    for (const row of this.rows.values()) if (!row.terminal && row.meta.workspace) worktrees.set(row.meta.id, row.meta.workspace);
    this.worktrees.sync(worktrees);
  }

  /** AHEAD and CHANGES of one task, read again (its worktree changed, or the backstop pass). */
  private async refreshDiff(id: string): Promise<void> {
    const workspaces = this.orange.maybeSlot('workspaces');
    const row = this.rows.get(id);
    if (!workspaces?.diffStat || !row?.meta.workspace || this.stopped) return;
    const diff = await workspaces.diffStat(row.meta).catch(() => null);
    const latest = this.rows.get(id);
    if (!latest || sameDiff(latest.diff, diff)) return;
    this.rows.set(id, { ...latest, diff });
    this.publish();
  }

  /** AHEAD and CHANGES for every active task with a worktree, one task at a time (git is not free). */
  private async refreshDiffs(): Promise<void> {
    const workspaces = this.orange.maybeSlot('workspaces');
    if (!workspaces?.diffStat || this.diffRunning) return;
    this.diffRunning = true;
    try {
      for (const row of [...this.rows.values()]) {
        if (this.stopped) return;
        if (!row.terminal) await this.refreshDiff(row.meta.id);
      }
    } finally {
      this.diffRunning = false;
    }
  }

  private async readLiveness(): Promise<RuntimeSnapshot | null> {
    const runtime = this.orange.maybeSlot('runtime');
    return runtime ? runtime.snapshot().catch(() => null) : null;
  }

  /** The workflow a task runs (its own; a task from before that field, its project's), asked once per workflow. */
  private workflowOf(meta: TaskMeta): Promise<Workflow> {
    const key = meta.workflow ? `workflow ${meta.workflow}` : `project ${meta.project}`;
    let workflow = this.workflows.get(key);
    if (!workflow) {
      workflow = this.orange.workflowFor(meta);
      this.workflows.set(key, workflow);
    }
    return workflow;
  }

  private async row(task: ListedTask, previous: TaskRow | undefined): Promise<TaskRow> {
    return this.rowIn(await this.workflowOf(task.meta), task, previous);
  }

  private rowIn(workflow: Workflow, task: ListedTask, previous: TaskRow | undefined): TaskRow {
    const listed = this.confirmedTampering(task, previous);
    return this.withPullRequest(this.withLiveness(rowOf(workflow, this.orange.engine.targets(workflow, listed.meta.status), listed, previous)));
  }

  /**
   * `task` as it may be shown: a move writes TASK.md and state.json one after the other, and a read
   * between them sees fields that disagree — not a hand edit. Such a task is read again
   * `tamperConfirmMs` later and shown as edited by hand (⚠) only if it still disagrees then.
   */
  private confirmedTampering(task: ListedTask, previous: TaskRow | undefined): ListedTask {
    const id = task.meta.id;
    if (task.tampered.length === 0 || (previous?.tampered.length ?? 0) > 0) {
      this.suspected.delete(id);
      return task;
    }
    const confirmMs = this.options.tamperConfirmMs ?? 1000;
    const suspicion = this.suspected.get(id) ?? { since: Date.now(), recheck: undefined };
    const waited = Date.now() - suspicion.since;
    if (this.suspected.has(id) && waited >= confirmMs) {
      this.suspected.delete(id);
      return task;
    }
    this.suspected.set(id, suspicion);
    // One re-read pending at a time, and again if a timer fired a millisecond early by the clock.
    if (suspicion.recheck === undefined) {
      suspicion.recheck = setTimeout(() => {
        suspicion.recheck = undefined;
        if (this.stopped) return;
        this.pending.set(id, { project: task.meta.project, id });
        void this.flush();
      }, Math.max(1, confirmMs - waited));
      suspicion.recheck.unref?.();
    }
    return { ...task, tampered: [] };
  }

  /** `row` with what is known of its pull request (while the URL is the one read). */
  private withPullRequest(row: TaskRow): TaskRow {
    const known = this.pullRequests.get(row.meta.id);
    if (!known || known.url !== row.meta.pr_url) return row;
    if (row.pr?.state === known.state && row.pr.checks === known.checks) return row;
    return { ...row, pr: known };
  }

  private withLiveness(row: TaskRow): TaskRow {
    const snapshot = this.liveness;
    if (!snapshot) return row;
    const alive = ROLES.filter((role) => snapshot.isAlive(row.meta, role));
    const liveness: Liveness = livenessOf(row, alive);
    if (liveness === row.liveness && alive.length === row.alive.length && alive.every((r, i) => row.alive[i] === r)) return row;
    return { ...row, alive, liveness };
  }

  private publish(): void {
    this.syncWorktrees();
    this.current = { rows: new Map(this.rows), loaded: true, unreadable: this.unreadable, revisions: new Map(this.revisions) };
    for (const listener of this.listeners) listener();
    this.markLoaded();
  }
}

/**
 * The row to keep: `read`, unless the row on screen was written later (`updated_at`, which every
 * engine write moves forward): a read that lags behind (the listing's index) never undoes a newer one.
 */
function newer(shown: TaskRow | undefined, read: TaskRow): TaskRow {
  return shown !== undefined && shown.meta.updated_at > read.meta.updated_at ? shown : read;
}

function sameDiff(a: TaskRow['diff'], b: TaskRow['diff']): boolean {
  return a === b || (a !== null && b !== null && a.ahead === b.ahead && a.added === b.added && a.removed === b.removed && a.files.length === b.files.length);
}
