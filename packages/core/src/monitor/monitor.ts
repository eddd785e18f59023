import { setTimeout as sleep } from 'node:timers/promises';
import { exitHandledInStatus } from '../engine/index.js';
import { isOrangeError } from '../errors/index.js';
import type { Orange, PullRequestFeedback, TaskRef } from '../plugin/index.js';
import { withLock, type HistoryEvent, type ListedTask } from '../store/index.js';
import type { AgentRole } from '../task/index.js';
import type { ExitDecision, Workflow } from '../workflow/index.js';
import { pullRequestReading, readPullRequest, type PullRequestReading } from './pull-request-reading.js';

export interface MonitorOptions {
  /** Only this project's tasks; default all. */
  readonly project?: string;
  /** Poll interval; default the config's `pollIntervalMs` (30 s). */
  readonly intervalMs?: number;
}

/** How long a pass waits for another process's pass to end before it gives up (E_LOCKED). */
export interface PassOptions {
  readonly waitMs?: number;
}

const PASS_WAIT_MS = 120_000;

/** What one monitor pass saw and did. */
export interface MonitorReport {
  readonly tasks: number;
  /** Agents that were expected alive and were looked at. */
  readonly agentsChecked: number;
  readonly exits: ReadonlyArray<{ task: string; role: AgentRole; decision: ExitDecision['kind']; reason: string }>;
  readonly sessionsKilled: readonly string[];
  readonly workspacesFreed: readonly string[];
  /** Queued tasks the pass started on free worktrees. */
  readonly tasksStarted: readonly string[];
  /** Pull request states the pass applied (`to`), or could not apply from the task's status (`to` null). */
  readonly pullRequests: ReadonlyArray<PullRequestApplied>;
  /** Every pull request the pass read: its state and, while open, its checks (the dashboard shows them without asking again). */
  readonly pullRequestsRead: readonly PullRequestReading[];
  /** Tasks found in a watched status longer than `notifications.staleAfterMs` (raised once per stay). */
  readonly stale: readonly string[];
  /** What reactions did with open pull requests' feedback. */
  readonly reactions: ReadonlyArray<{ task: string; reaction: string; outcome: string }>;
  /** Tasks another process was moving (their lock was held): left alone, taken at the next pass. */
  readonly busy: readonly string[];
  /** External processes the runtime started for liveness (1 per pass with tmux). */
  readonly runtimeProcesses: number;
  readonly durationMs: number;
}

/** A merged or closed pull request's state, applied to its task (`to`), or refused by the task's status (`to` null). */
export interface PullRequestApplied {
  readonly task: string;
  readonly state: string;
  readonly to: string | null;
}

/** What the pull request sync of one task (`R`) did and read. */
export interface PullRequestSync {
  /** The state it applied (or could not apply); null when there was nothing to apply. */
  readonly applied: PullRequestApplied | null;
  /** The pull request as it was read; null when it could not be read (logged). */
  readonly read: PullRequestReading | null;
}

const ROLES: readonly AgentRole[] = ['worker', 'reviewer'];

/**
 * The backstop of exit monitoring: the runtime reports agent exits as they happen; this pass
 * catches what it cannot (sessions killed from outside, a reboot), frees orphans and syncs PRs.
 * Every action goes through the engine, so two monitors (or a monitor and an exit report)
 * racing on one death act once: the spawn id is cleared under the task lock by whoever is first.
 */
export class Monitor {
  private readonly intervalMs: number;

  constructor(
    private readonly orange: Orange,
    private readonly options: MonitorOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? orange.config.pollIntervalMs;
  }

  /**
   * One pass over every task: dead agents, orphans, pull requests. It runs under the pass lock, so
   * no two passes overlap, whichever processes run them: each sees what the one before did. It
   * never waits for a task's lock: a task another process is moving is left to the next pass.
   */
  async pass(options: PassOptions = {}): Promise<MonitorReport> {
    return withLock(this.orange.paths.monitorPassFile, 'the monitor pass', () => this.orange.store.withoutLockWaits(() => this.passNow()), {
      waitMs: options.waitMs ?? PASS_WAIT_MS,
    });
  }

  /**
   * The pull request sync of one task, as a pass does it (merged → done, closed → cancelled, an
   * open one's feedback to reactions), under the same pass lock: the dashboard's `R`.
   */
  async syncPullRequest(ref: TaskRef, options: PassOptions = {}): Promise<PullRequestSync> {
    return withLock(
      this.orange.paths.monitorPassFile,
      'the monitor pass',
      async () => {
        const { task, tampered } = await this.orange.store.inspect(ref.project, ref.id);
        const workflow = await this.orange.workflowFor(task.meta);
        const { applied, read } = await this.syncPullRequests([{ meta: task.meta, tampered: tampered.map((f) => f.field) }], async () => workflow, []);
        return { applied: applied[0] ?? null, read: read[0] ?? null };
      },
      { waitMs: options.waitMs ?? PASS_WAIT_MS },
    );
  }

  private async passNow(): Promise<MonitorReport> {
    const started = performance.now();
    const log = this.orange.log.child('monitor');
    // Tasks first, liveness second: an agent spawned in between shows up alive, never falsely dead.
    const { tasks } = await this.orange.store.list(this.options.project);
    const workflows = new Map<string, Workflow>();
    // Each task runs its own workflow; tasks from before that field run their project's.
    const workflowOf = async (task: ListedTask) => {
      const key = task.meta.workflow ? `workflow ${task.meta.workflow}` : `project ${task.meta.project}`;
      const w = workflows.get(key) ?? (await this.orange.workflowFor(task.meta));
      workflows.set(key, w);
      return w;
    };

    const runtime = this.orange.maybeSlot('runtime');
    const exits: Array<{ task: string; role: AgentRole; decision: ExitDecision['kind']; reason: string }> = [];
    const sessionsKilled: string[] = [];
    const busy = new Set<string>();
    let agentsChecked = 0;
    let runtimeProcesses = 0;

    if (runtime) {
      const snapshot = await runtime.snapshot();
      runtimeProcesses = snapshot.processes;
      const activeSessions = new Set<string>();
      for (const task of tasks) {
        const workflow = await workflowOf(task);
        if (!workflow.isActive(task.meta.status)) continue;
        activeSessions.add(runtime.sessionName(task.meta));
        const ref = { project: task.meta.project, id: task.meta.id };
        const responsible = workflow.state(task.meta.status)?.agent ?? null;
        for (const role of ROLES) {
          const spawn = role === 'worker' ? task.meta.worker_spawn : task.meta.reviewer_spawn;
          // A responsible agent with no spawn recorded is looked at too: "every active task has an agent or
          // a flag" — unless its exit could only mark the task, which `task list` shows live anyway.
          if (spawn === null && (role !== responsible || onlyMarks(workflow, task.meta.status))) continue;
          agentsChecked++;
          if (snapshot.isAlive(task.meta, role)) continue;
          try {
            if (spawn === null && exitHandledInStatus(await this.orange.store.history(ref.project, ref.id), role)) continue;
            const outcome = spawn === null ? await this.orange.engine.agentMissing(ref, role) : await this.orange.engine.agentExited(ref, role, spawn, 'poll');
            if (outcome.decision.kind !== 'ignore') {
              exits.push({ task: task.meta.id, role, decision: outcome.decision.kind, reason: outcome.decision.reason });
              log.info('dead agent handled', { task: task.meta.id, role, decision: outcome.decision.kind, recorded: spawn !== null });
            }
          } catch (error) {
            if (isBusy(error)) busy.add(task.meta.id);
            else log.error('handling a dead agent failed', { task: task.meta.id, role, error: String(error) });
          }
        }
      }
      // Sessions of finished tasks are orphans, unless an active task now uses the same name.
      const live = new Set(snapshot.sessions);
      for (const task of tasks) {
        const workflow = await workflowOf(task);
        if (!workflow.isTerminal(task.meta.status)) continue;
        const name = runtime.sessionName(task.meta);
        if (!live.has(name) || activeSessions.has(name) || sessionsKilled.includes(name)) continue;
        try {
          // The listing is a cache any process of the user can write: what ends agents is confirmed
          // from the task's own files (its ledger-checked status) first.
          const confirmed = await this.orange.engine.readVerified({ project: task.meta.project, id: task.meta.id }).catch(() => null);
          if (confirmed === null || !(await this.orange.workflowFor(confirmed.meta)).isTerminal(confirmed.meta.status)) {
            log.warn('orphan session left alone: the listing says the task is finished, its files do not', { task: task.meta.id, session: name });
            continue;
          }
          // false: it was gone already (its task's own cleanup got there first): nothing to report.
          if ((await runtime.killSession(name)) === false) continue;
          sessionsKilled.push(name);
          log.info('orphan session killed', { task: task.meta.id, session: name });
        } catch (error) {
          log.error('killing an orphan session failed', { session: name, error: String(error) });
        }
      }
    }

    const workspacesFreed: string[] = [];
    const tasksStarted: string[] = [];
    const workspaces = this.orange.maybeSlot('workspaces');
    if (workspaces) {
      try {
        const { freed, busy: busyHolders = [], started = [] } = await workspaces.gc(this.options.project);
        for (const w of freed) workspacesFreed.push(w.name);
        tasksStarted.push(...started);
        for (const id of busyHolders) busy.add(id);
        if (freed.length) log.info('orphan workspaces freed', { workspaces: workspacesFreed });
      } catch (error) {
        log.error('workspace gc failed', { error: String(error) });
      }
    }

    // Entries whose deliverer was killed or never started (delivered in the background; settle() waits).
    this.orange.notifications.flushOutbox();

    const reactions: Array<{ task: string; reaction: string; outcome: string }> = [];
    const { applied: pullRequests, read: pullRequestsRead } = await this.syncPullRequests(tasks, workflowOf, reactions, busy);
    const stale = await this.raiseStale(tasks, workflowOf, busy);
    if (busy.size > 0) log.debug('busy tasks left to the next pass', { tasks: [...busy] });
    return {
      tasks: tasks.length,
      agentsChecked,
      exits,
      sessionsKilled,
      workspacesFreed,
      tasksStarted,
      pullRequests,
      pullRequestsRead,
      stale,
      reactions,
      busy: [...busy],
      runtimeProcesses,
      durationMs: performance.now() - started,
    };
  }

  /** A merged PR finishes the task (merge cleanup); a closed one cancels it; an open one's feedback goes to reactions. */
  private async syncPullRequests(
    tasks: readonly ListedTask[],
    workflowOf: (t: ListedTask) => Promise<Workflow>,
    reactions: Array<{ task: string; reaction: string; outcome: string }>,
    busy: Set<string> = new Set(),
  ): Promise<{ applied: PullRequestApplied[]; read: PullRequestReading[] }> {
    const scm = this.orange.maybeSlot('scm');
    const results: PullRequestApplied[] = [];
    const read: PullRequestReading[] = [];
    if (!scm) return { applied: results, read };
    const log = this.orange.log.child('monitor');
    for (const task of tasks) {
      if (!task.meta.pr_url) continue;
      const workflow = await workflowOf(task);
      if (workflow.isTerminal(task.meta.status)) continue;
      try {
        const project = await this.orange.projects.get(task.meta.project);
        const { state, feedback } = await readPullRequest(scm, task, project);
        read.push(pullRequestReading(task, state, feedback));
        if (state === 'open' && feedback) await this.checkPullRequest(task, workflow, feedback, reactions, busy);
        const target = state === 'merged' ? 'done' : state === 'closed' ? 'cancelled' : null;
        if (target === null || state === null) continue;
        if (workflow.between(task.meta.status, target).length === 0) {
          log.warn('pull request state cannot be applied from this status', { task: task.meta.id, state, status: task.meta.status });
          results.push({ task: task.meta.id, state, to: null });
          continue;
        }
        const result = await this.orange.engine.transition({ project: task.meta.project, id: task.meta.id }, target, {
          cause: 'auto',
          reason: `pull request ${state}`,
          expectFrom: task.meta.status,
        });
        if (result.changed) {
          if (state === 'merged') await this.orange.store.appendHistory(task.meta.project, task.meta.id, { type: 'task.merged', via: 'pull request', url: task.meta.pr_url });
          results.push({ task: task.meta.id, state, to: target });
          log.info('pull request synced', { task: task.meta.id, state, to: target });
        }
      } catch (error) {
        // The SCM itself is out of reach (e.g. gh missing or logged out): one line per pass,
        // not one per task, and no point asking about the other tasks.
        if (isOrangeError(error) && error.details.unavailable === true) {
          log.warn('pull request sync skipped', { reason: error.message });
          break;
        }
        if (isBusy(error)) {
          busy.add(task.meta.id);
          continue;
        }
        log.warn('pull request sync failed', { task: task.meta.id, error: error instanceof Error ? error.message : String(error) });
      }
    }
    return { applied: results, read };
  }

  /** Hands an open pull request's checks and reviews to the `pullRequestChecked` taps (reactions), when someone listens. */
  private async checkPullRequest(
    task: ListedTask,
    workflow: Workflow,
    feedback: PullRequestFeedback,
    reactions: Array<{ task: string; reaction: string; outcome: string }>,
    busy: Set<string>,
  ) {
    if (this.orange.hooks.pullRequestChecked.taps.length === 0) return;
    // Acting on feedback is extra: a failure is logged and the pass goes on.
    try {
      const current = await this.orange.store.read(task.meta.project, task.meta.id);
      await this.orange.hooks.pullRequestChecked.promise({
        orange: this.orange,
        task: current,
        workflow,
        feedback,
        report: (entry) => reactions.push({ task: task.meta.id, ...entry }),
      });
    } catch (error) {
      // A task another process is moving is taken at the next pass, its feedback then still unread.
      if (isBusy(error)) busy.add(task.meta.id);
      else this.orange.log.child('monitor').warn('pull request feedback failed', { task: task.meta.id, error: error instanceof Error ? error.message : String(error) });
    }
  }

  /**
   * Raises an urgent `task.stale` for each task that has been in one watched status longer than its
   * `notifications.staleAfterMs`, once per stay in that status (recorded in its history).
   */
  private async raiseStale(tasks: readonly ListedTask[], workflowOf: (t: ListedTask) => Promise<Workflow>, busy: Set<string>): Promise<string[]> {
    const setting = this.orange.config.notifications.staleAfterMs;
    if (setting === undefined) return [];
    const raised: string[] = [];
    const now = Date.now();
    for (const task of tasks) {
      const workflow = await workflowOf(task);
      const after = staleAfter(setting, workflow, task.meta.status);
      if (after === null) continue;
      // updated_at is at least the time the status was entered: a recent one needs no history read.
      if (now - Date.parse(task.meta.updated_at) < after && now - Date.parse(task.meta.created_at) < after) continue;
      const { project, id, status } = task.meta;
      try {
        const notified = await this.orange.store.withTaskLock(project, id, async () => {
          const history = await this.orange.store.history(project, id);
          const since = enteredAt(history, status);
          if (since === null || now - Date.parse(since) < after) return null;
          if (history.some((e) => e.type === 'task.stale' && e.status === status && e.timestamp >= since)) return null;
          await this.orange.store.appendHistory(project, id, { type: 'task.stale', status, since });
          return since;
        });
        if (notified === null) continue;
        const minutes = Math.round((now - Date.parse(notified)) / 60_000);
        this.orange.notifications.raise({
          event: 'task.stale',
          priority: 'urgent',
          title: `In ${status} for ${minutes} min: ${task.meta.summary.trim() || task.meta.branch}`,
          reason: `no status change since ${notified}`,
          task: task.meta,
        });
        raised.push(id);
      } catch (error) {
        if (isBusy(error)) busy.add(id);
        else this.orange.log.child('monitor').warn('stale check failed', { task: id, error: String(error) });
      }
    }
    return raised;
  }

  /** Passes until `signal` aborts; `onPass` sees every report. Never throws for a failed pass. */
  async run(signal: AbortSignal, onPass?: (report: MonitorReport) => void): Promise<void> {
    while (!signal.aborted) {
      try {
        const report = await this.pass();
        onPass?.(report);
      } catch (error) {
        this.orange.log.error('monitor pass failed', { error: error instanceof Error ? error.message : String(error) });
      }
      try {
        await sleep(this.intervalMs, undefined, { signal });
      } catch {
        return;
      }
    }
  }
}

/** A task lock another process holds (the pass does not wait for it). */
function isBusy(error: unknown): boolean {
  return isOrangeError(error) && error.code === 'E_LOCKED';
}

/** When the task last entered `status`: its last `status.changed` to it, or its creation in it. */
function enteredAt(history: readonly HistoryEvent[], status: string): string | null {
  for (let i = history.length - 1; i >= 0; i--) {
    const event = history[i] as HistoryEvent;
    if (event.type === 'status.changed') return event.to === status ? event.timestamp : null;
    if (event.type === 'task.created') return event.timestamp;
  }
  return null;
}

/**
 * How long a task may stay in `status` before it is stale, or null when that status is not watched.
 * A plain number watches only statuses where an agent works (its exit would advance or crash the
 * task): in one that waits for a person (reviewing, stuck, clarification) the wait is the person's.
 */
function staleAfter(setting: number | Readonly<Record<string, number>>, workflow: Workflow, status: string): number | null {
  if (!workflow.isActive(status)) return null;
  if (typeof setting === 'number') return onlyMarks(workflow, status) ? null : setting;
  return Object.hasOwn(setting, status) ? (setting[status] ?? null) : null;
}

/** True when the exit rule of `status` neither advances nor counts a crash: an exit there only marks. */
function onlyMarks(workflow: Workflow, status: string): boolean {
  const rule = workflow.exitRule(status);
  return rule === undefined || (rule.otherwise === 'mark' && rule.advance.length === 0);
}
