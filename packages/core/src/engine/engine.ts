import { statusNotice } from '../notifications/index.js';
import { isOrangeError, OrangeError, TransitionRefused, type ErrorCode } from '../errors/index.js';
import { isHeld } from '../store/index.js';
import { decideExit, exitHandledInStatus, failedStartInStatus, START_RETRIES, type ExitDecision } from '../workflow/index.js';
import { evaluateGuard } from '../workflow/index.js';
import type { ActionContext, AfterTransitionEvent, Cause, LockedTaskWrites, RefusalCheck, TransitionEvent } from '../plugin/index.js';
import type { NotificationInput } from '../notifications/index.js';
import type { Orange } from '../orange.js';
import { parseSections, sectionNameProblem, setSection, strayHeading } from '../task/index.js';
import type { HistoryEvent } from '../store/index.js';
import { assertBranchName, assertProjectName, newTaskId } from '../store/index.js';
import { newTaskMeta } from '../store/index.js';
import { TASK_META_ORDER, type AgentRole, type Task, type TaskMeta } from '../task/index.js';
import type { Transition, Workflow } from '../workflow/index.js';
import { renderPrompt } from '../workflow/index.js';
import { oneLineSummary } from '../text/index.js';

/** Identifies a task on disk. */
export interface TaskRef {
  readonly project: string;
  readonly id: string;
}

export interface TransitionOptions {
  readonly cause?: Cause;
  /** Why (for history and logs), e.g. the exit rule that fired. */
  readonly reason?: string;
  /** Makes the call a no-op unless the task is still in this status (idempotent auto-advance). */
  readonly expectFrom?: string;
  /** Take the workflow's crash transition (exit monitor at the crash limit): no gate, no guard. */
  readonly crash?: boolean;
  /**
   * A person's explicit force (a confirmed force-merge): where no ordinary transition leads to the
   * target, the workflow's `force` one is taken (no gate, no guard). Without one, refused as usual.
   */
  readonly force?: boolean;
  /** False: the caller raises its own notification for this move, so no `status.changed` one is raised. */
  readonly notify?: boolean;
  /**
   * A change to the body that lands in the same write as the new status, so a refused move writes
   * neither (`task request-changes`' notes). Applied to the body as TASK.md has it then (an agent may
   * have edited it); the checks (guard, gate, vetoes) see the body it gives. May run more than once.
   */
  readonly body?: (current: string) => string;
  /**
   * Workflow fields (not the core's own, see TASK_META_ORDER) that land in the same write as the
   * new status, seen by the checks like `body` (`task clarify` clears the pipeline's confidence).
   */
  readonly fields?: Readonly<Record<string, string | number | boolean | null>>;
  /**
   * The move's own notification, raised instead of the core's `status.changed` one (the pipeline's
   * breaker notice). It is made durable after the checks and before the status is written (the
   * outbox of a one-shot process), so a process killed between the two cannot move the task unheard.
   */
  readonly notification?: MoveNotification;
}

/** A notification a move carries; the task, `from` and `to` are the move's. */
export type MoveNotification = Pick<NotificationInput, 'event' | 'priority' | 'title' | 'reason'>;

export interface TransitionResult {
  readonly task: Task;
  readonly from: string;
  readonly to: string;
  /** False when `expectFrom` no longer matched and nothing was done. */
  readonly changed: boolean;
  /** Actions that failed after the status was written. */
  readonly failedHooks: readonly string[];
  /** Each failed action with its own error, in the order they ran. */
  readonly failures: readonly ActionFailure[];
}

/** An action that failed after the status was written: its name and its own error. */
export interface ActionFailure {
  readonly action: string;
  readonly message: string;
  /** The error's `code` when it is an OrangeError (E_POOL_EXHAUSTED, E_RUNTIME, …). */
  readonly code?: string;
}

export interface CreateTaskInput {
  readonly project: string;
  readonly branch?: string;
  readonly summary?: string;
  /** Creation status; default: the workflow's initial status, or `clarification` for an empty summary. */
  readonly status?: string;
  readonly harness?: string | null;
  readonly reviewHarness?: string | null;
  readonly effort?: string | null;
  readonly reviewEffort?: string | null;
  /** Written as the body's `## Context`. */
  readonly context?: string;
  /** Start it now (default true). */
  readonly spawn?: boolean;
  /** The tracker issue the task comes from (`task create --issue`): kept as the sealed fields `issue` and `issue_url`. */
  readonly issue?: { readonly ref: string; readonly url: string; readonly tracker: string };
  /** Values for fields the workflow declares (`fields`), over their defaults, e.g. the pipeline's `budget_usd`. */
  readonly fields?: Readonly<Record<string, number | string | boolean | null>>;
}

export interface CreateTaskResult {
  readonly task: Task;
  /** True when an agent was started (or the start state entered). */
  readonly spawned: boolean;
  /** Why a pending task was not started (e.g. the pool is exhausted). */
  readonly queuedReason?: string;
  /** Actions that failed while starting it (the task is flagged for attention). */
  readonly failedHooks: readonly string[];
  /** Each failed action with its own error. */
  readonly failures: readonly ActionFailure[];
}

/** What `Engine.edit` may change; `branch: null` adopts the worktree's current branch. */
export interface TaskEdit {
  readonly summary?: string;
  readonly branch?: string | null;
}

export interface ExitOutcome {
  readonly decision: ExitDecision;
  readonly task: Task;
}

/** A combined request (`orange task update`): any of a status change, a summary, a branch. */
export interface TaskRequest {
  readonly status?: string;
  readonly summary?: string;
  /** A new branch name; null adopts the branch the worktree is on. */
  readonly branch?: string | null;
  readonly cause?: Cause;
  readonly reason?: string;
}

export interface RequestResult {
  readonly task: Task;
  /** Fields the edit changed (`summary`, `branch`). */
  readonly edited: readonly string[];
  /** The status change, when one was requested. */
  readonly transition: TransitionResult | null;
}

interface PreparedTransition {
  readonly event: TransitionEvent;
  readonly options: TransitionOptions;
}

type Deferred = () => Promise<void>;

/** The move an action runs for: a transition's, a create rule's (`from` null), or a respawn's (`from` = `to`). */
interface ActionMove {
  readonly from: string | null;
  readonly to: string;
  readonly cause: Cause;
  readonly reason?: string;
}

/**
 * The state machine's executor. Every status change, from the CLI or the exit monitor,
 * goes through `transition` (map → guard → gate → veto → write → actions → reset → history).
 */
export class Engine {
  constructor(private readonly orange: Orange) {}

  /** Requests a status change; throws TransitionRefused (nothing changed) or returns the result. */
  async transition(ref: TaskRef, to: string, options: TransitionOptions = {}): Promise<TransitionResult> {
    const deferred: Deferred[] = [];
    const result = await this.orange.store.withTaskLock(ref.project, ref.id, async () => {
      const task = await this.readVerified(ref);
      return this.transitionLocked(task, to, options, deferred);
    });
    await this.runDeferred(deferred);
    return result;
  }

  /**
   * Reads a task and refuses it (E_TAMPERED) when TASK.md shows an engine-owned field with a value
   * the engine never wrote (a hand-edited status, branch, id, …), or its status disagrees with the ledger.
   */
  async readVerified(ref: TaskRef): Promise<Task> {
    const store = this.orange.store;
    if (store.holdsTaskLock(ref.project, ref.id)) return this.readVerifiedLocked(ref);
    try {
      return await this.readVerifiedLocked(ref);
    } catch (error) {
      if (!isOrangeError(error) || error.code !== 'E_TAMPERED') throw error;
      // Read without the lock, a writer may be between its status write and its ledger entry (or
      // between state.json and TASK.md): only what the lock's holder left behind is tampering.
      return store.withTaskLock(ref.project, ref.id, () => this.readVerifiedLocked(ref));
    }
  }

  private async readVerifiedLocked(ref: TaskRef): Promise<Task> {
    const { task, tampered } = await this.orange.store.inspect(ref.project, ref.id);
    const first = tampered[0];
    if (first !== undefined) {
      const fields = tampered.map((t) => `${t.field} ${shown(t.found)} (of record: ${shown(t.expected)})`).join(', ');
      throw new OrangeError('E_TAMPERED', `task ${ref.id}: TASK.md was edited by hand: ${fields}; run: orange task repair ${ref.id}`, {
        fields: tampered.map((t) => t.field),
        ...(first.field === 'status' ? { file: first.found, ledger: first.expected } : {}),
      });
    }
    const ledger = await this.orange.store.ledgerStatus(ref.project, ref.id);
    if (ledger !== null && ledger !== task.meta.status) {
      throw new OrangeError(
        'E_TAMPERED',
        `task ${ref.id}: TASK.md says status "${task.meta.status}" but the ledger says "${ledger}" (edited by hand?); run: orange task repair ${ref.id}`,
        { fields: ['status'], file: task.meta.status, ledger },
      );
    }
    return task;
  }

  /** The legal targets from a task's status (for messages and UIs). */
  targets(workflow: Workflow, status: string): string[] {
    return [...new Set(workflow.from(status).map((t) => t.to))];
  }

  private async transitionLocked(task: Task, to: string, options: TransitionOptions, deferred: Deferred[]): Promise<TransitionResult> {
    const from = task.meta.status;
    if (options.expectFrom !== undefined && from !== options.expectFrom) {
      return { task, from, to: from, changed: false, failedHooks: [], failures: [] };
    }
    return this.applyTransition(await this.prepareTransition(task, to, options), deferred);
  }

  /** Map, guard, gate and vetoes: throws TransitionRefused, or returns what `applyTransition` needs. Writes nothing. */
  private async prepareTransition(task: Task, to: string, options: TransitionOptions): Promise<PreparedTransition> {
    const from = task.meta.status;
    const cause = options.cause ?? 'request';
    const workflow = await this.orange.workflowForProject(task.meta.project);
    // The move is checked on the task as it would be written: its body and fields changed, its status not yet.
    const seen = { meta: options.fields ? { ...task.meta, ...workflowFields(options.fields) } : task.meta, body: options.body ? options.body(task.body) : task.body };
    try {
      const transition = await this.select(workflow, seen, to, options);
      const event: TransitionEvent = {
        orange: this.orange,
        task: seen,
        workflow,
        transition,
        from,
        to,
        cause,
        ...(options.reason ? { reason: options.reason } : {}),
        ...(options.notify === false || options.notification ? { notify: false } : {}),
      };
      const veto = await this.orange.hooks.beforeTransition.promise(event);
      if (typeof veto === 'string' && veto !== '') throw new TransitionRefused('E_VETOED', from, to, veto);
      return { event, options };
    } catch (error) {
      if (error instanceof TransitionRefused) await this.announceRefusal(task, error, cause);
      throw error;
    }
  }

  /** Tells `transitionRefused` observers (notifiers, audit logs) about a refusal; they cannot change it. */
  private async announceRefusal(task: Task, refusal: TransitionRefused, cause: Cause): Promise<void> {
    const check = REFUSAL_CHECKS[refusal.code];
    if (check === undefined) return;
    const reason = typeof refusal.details.reason === 'string' ? refusal.details.reason : refusal.message;
    const source = cause === 'auto' || cause === 'crash' ? 'exit-rule' : 'request';
    await this.safely('transitionRefused', () =>
      this.orange.hooks.transitionRefused.promise({ orange: this.orange, task, from: refusal.from, to: refusal.to, cause, source, check, code: refusal.code, reason }),
    );
  }

  /** Status write → ledger → actions → reset → history → hooks. The task lock is held. */
  private async applyTransition(prepared: PreparedTransition, deferred: Deferred[]): Promise<TransitionResult> {
    const { event, options } = prepared;
    const { task, workflow, transition, from, to, cause } = event;
    // Durable before the move it announces: a death between the two, or during the actions, cannot
    // leave the move unheard. The caller's own notice replaces the core's status.changed one.
    const notice = options.notification ?? (options.notify === false ? null : statusNotice(this.orange.notifications, task.meta, to, options.reason));
    const notify = notice ? await this.orange.notifications.stage({ ...notice, task: { ...task.meta, status: to }, from, to }) : null;
    // `fields` were checked by prepareTransition, which every move passes first.
    let current = await this.orange.store.update(task.meta.project, task.meta.id, { ...options.fields, status: to }, options.body);
    // The ledger entry follows the write at once: a status of record exists only with it.
    await this.record(current, {
      type: 'status.changed',
      from,
      to,
      cause,
      ...(options.reason ? { reason: options.reason } : {}),
      ...(transition.force ? { forced: true } : {}),
    });
    this.orange.log.info('status changed', { task: task.meta.id, project: task.meta.project, from, to, cause });
    notify?.();

    const { task: afterHooks, failed, failures } = await this.runActions(current, workflow, transition.hooks, { from, to, cause, reason: options.reason }, deferred);
    current = await this.writeFresh(afterHooks, {
      crash_count: 0,
      attention: failed.length > 0 ? failedHooksNote(failed) : null,
    });
    if (cause === 'auto' || cause === 'crash') {
      const reason = options.reason ?? cause;
      await this.record(current, { type: 'auto.advanced', from, to, reason });
      await this.safely('autoAdvanced', () => this.orange.hooks.autoAdvanced.promise({ orange: this.orange, task: current, from, to, reason }));
    }
    // Taps write through the event (the lock is held): `current` follows their writes.
    const writes = this.lockedWrites(() => current, (t) => (current = t));
    const after: AfterTransitionEvent = {
      ...event,
      get task() {
        return current;
      },
      ...writes,
    };
    await this.safely('afterTransition', () => this.orange.hooks.afterTransition.promise(after));
    return { task: current, from, to, changed: true, failedHooks: failed, failures };
  }

  private async select(workflow: Workflow, task: Task, to: string, options: TransitionOptions): Promise<Transition> {
    const from = task.meta.status;
    if (workflow.state(to) === undefined) {
      throw new TransitionRefused('E_ILLEGAL_TRANSITION', from, to, `"${to}" is not a status of workflow ${workflow.name} (statuses: ${workflow.states.join(', ')})`);
    }
    if (workflow.isTerminal(from)) {
      throw new TransitionRefused('E_ILLEGAL_TRANSITION', from, to, `${from} is terminal`);
    }
    const crashOnes = options.crash ? workflow.between(from, to, true) : [];
    const candidates = crashOnes.length > 0 ? crashOnes : workflow.between(from, to, false);
    if (candidates.length === 0) {
      const forced = workflow.forced(from, to)[0];
      if (forced !== undefined && options.force === true) return forced;
      const allowed = this.targets(workflow, from);
      throw new TransitionRefused(
        'E_ILLEGAL_TRANSITION',
        from,
        to,
        `not a transition of workflow ${workflow.name}${allowed.length ? ` (from ${from}: ${allowed.join(', ')})` : ''}${forced ? '; a person can force it (a forced merge)' : ''}`,
      );
    }
    if (crashOnes.length > 0) return crashOnes[0] as Transition;
    const fields = task.meta as Record<string, unknown>;
    const guarded = candidates.filter((t) => t.parsedGuard === null || evaluateGuard(t.parsedGuard, fields));
    const chosen = guarded[0];
    if (chosen === undefined) {
      const guard = candidates[0]?.parsedGuard;
      const reason = guard ? `guard "${guard.source}" does not hold (${guard.field} is ${JSON.stringify(fields[guard.field] ?? null)})` : 'no guard holds';
      throw new TransitionRefused('E_GUARD_FAILED', from, to, reason);
    }
    if (chosen.gate !== undefined) {
      const gate = this.orange.gates.get(chosen.gate);
      if (!gate) throw new TransitionRefused('E_GATE_FAILED', from, to, `gate "${chosen.gate}" is not registered`);
      const result = await gate({ task, sections: parseSections(task.body), from, to });
      if (!result.ok) throw new TransitionRefused('E_GATE_FAILED', from, to, result.reason);
    }
    return chosen;
  }

  /** Runs actions in order; a failure is logged, recorded as `hook.failed`, and the rest still run. */
  private async runActions(
    task: Task,
    workflow: Workflow,
    actions: readonly string[],
    move: ActionMove,
    deferred: Deferred[],
  ): Promise<{ task: Task; failed: string[]; failures: ActionFailure[] }> {
    const { from, to } = move;
    const failed: string[] = [];
    const failures: ActionFailure[] = [];
    let current = task;
    for (const action of actions) {
      const ctx = this.actionContext(action, () => current, (t) => (current = t), workflow, move, deferred);
      try {
        const hook = this.orange.hooks.actions.get(action);
        if (!hook || hook.taps.length === 0) throw new OrangeError('E_NO_PROVIDER', `no plugin provides hook "${action}"`);
        await hook.promise(ctx);
      } catch (error) {
        const err = error instanceof Error ? error : new Error(String(error));
        failed.push(action);
        failures.push({ action, message: err.message, ...(isOrangeError(err) ? { code: err.code } : {}) });
        this.orange.log.error('hook failed', { task: current.meta.id, hook: action, from, to, error: err.message });
        await this.record(current, { type: 'hook.failed', hook: action, from, to, error: err.message });
        await this.safely('hookFailed', () => this.orange.hooks.hookFailed.promise({ orange: this.orange, task: current, action, error: err }));
      }
    }
    return { task: current, failed, failures };
  }

  private actionContext(action: string, get: () => Task, set: (t: Task) => void, workflow: Workflow, move: ActionMove, deferred: Deferred[]): ActionContext {
    const orange = this.orange;
    const engine = this;
    return {
      action,
      orange,
      workflow,
      from: move.from,
      to: move.to,
      cause: move.cause,
      ...(move.reason ? { reason: move.reason } : {}),
      log: orange.log.child(action),
      get task() {
        return get();
      },
      ...this.lockedWrites(get, set),
      async record(event) {
        await engine.record(get(), event);
      },
      prompt: (role, respawn = false) => this.prompt(workflow, get(), role, respawn),
      defer(fn) {
        deferred.push(fn);
      },
    };
  }

  /** The writes of an action or an afterTransition tap, under the lock the engine holds: `set` follows each. */
  private lockedWrites(get: () => Task, set: (t: Task) => void): Omit<LockedTaskWrites, 'task'> {
    return {
      update: async (patch) => {
        const next = await this.writeFresh(get(), patch);
        set(next);
        return next;
      },
      writeSection: async (name, content) => {
        const task = get();
        checkSection(name, content);
        const next = await this.writeSectionLocked({ project: task.meta.project, id: task.meta.id }, name, content);
        set(next);
        return next;
      },
    };
  }

  /** Renders the prompt for an agent of `role` spawned into the task's current status. */
  async prompt(workflow: Workflow, task: Task, role: AgentRole, respawn: boolean): Promise<string> {
    const fields = task.meta as Record<string, unknown>;
    const state = workflow.state(task.meta.status);
    const ref = respawn ? (state?.respawnPrompt ?? state?.prompt) : (state?.prompt ?? state?.respawnPrompt);
    const template =
      (state?.agent === role || state?.agent === null ? workflow.resolvePrompt(ref, fields) : undefined) ??
      this.fallbackPrompt(workflow, role, respawn, fields);
    const text = renderPrompt(template, fields);
    return this.orange.hooks.prompt.promise(text, { orange: this.orange, task, role, respawn });
  }

  /** A role's prompt when the current state has none for it (e.g. a worker respawned during review). */
  private fallbackPrompt(workflow: Workflow, role: AgentRole, respawn: boolean, fields: Record<string, unknown>): string {
    for (const name of workflow.states) {
      const state = workflow.state(name);
      if (state?.agent !== role) continue;
      const found = workflow.resolvePrompt(respawn ? (state.respawnPrompt ?? state.prompt) : state.prompt, fields);
      if (found) return found;
    }
    return '# Task: {summary}\n\nProject: {project}\nBranch: {branch}\nStatus: {status}\n\nRead TASK.md and continue.\n';
  }

  /** Creates a task, then (unless `spawn: false`) starts it: pending → start, or the create actions. */
  async createTask(input: CreateTaskInput): Promise<CreateTaskResult> {
    const projectName = assertProjectName(input.project);
    await this.orange.projects.get(projectName);
    const workflow = await this.orange.workflowForProject(projectName);
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
      summary,
      harness: input.harness || null,
      review_harness: input.reviewHarness || null,
      effort: input.effort ?? null,
      review_effort: input.reviewEffort ?? null,
      ...(input.issue ? { issue: input.issue.ref, issue_url: input.issue.url } : {}),
    });
    const body = input.context && input.context.trim() !== '' ? setSection('', 'Context', input.context) : '';
    // Branch uniqueness needs a project-wide lock: two creates for one branch must not both win.
    const task = await this.orange.store.withProjectLock(projectName, async () => {
      const { tasks } = await this.orange.store.list(projectName);
      const holder = tasks.find((t) => t.meta.branch === branch && !workflow.isTerminal(t.meta.status));
      if (holder) throw new OrangeError('E_TASK_EXISTS', `branch ${branch} already has task ${holder.meta.id} (${holder.meta.status})`);
      // Put aside in the initial status (--no-spawn): out of the queue until someone spawns it.
      const created = await this.orange.store.create({ meta, body }, { held: input.spawn === false && status === workflow.initial });
      const issue = input.issue;
      if (issue) await this.orange.store.withTaskLock(projectName, id, () => this.record(created, { type: 'issue.linked', ...issue }));
      return created;
    });
    this.orange.log.info('task created', { task: id, project: projectName, status, branch, ...(input.issue ? { issue: input.issue.ref } : {}) });
    await this.safely('taskCreated', () => this.orange.hooks.taskCreated.promise({ orange: this.orange, task }));
    if (input.spawn === false) return { task, spawned: false, failedHooks: [], failures: [] };

    if (status === workflow.initial) {
      try {
        const result = await this.transition({ project: projectName, id }, workflow.start, { cause: 'spawn' });
        return { task: result.task, spawned: true, failedHooks: result.failedHooks, failures: result.failures };
      } catch (error) {
        if (error instanceof TransitionRefused && error.code === 'E_VETOED') {
          return { task: await this.orange.store.read(projectName, id), spawned: false, queuedReason: error.details.reason as string, failedHooks: [], failures: [] };
        }
        throw error;
      }
    }
    const hooks = workflow.createHooks(status) ?? [];
    if (hooks.length === 0) return { task, spawned: false, failedHooks: [], failures: [] };
    const deferred: Deferred[] = [];
    const created = await this.orange.store.withTaskLock(projectName, id, async () => {
      const { task: after, failed, failures } = await this.runActions(task, workflow, hooks, { from: null, to: status, cause: 'create' }, deferred);
      const flagged = failed.length ? await this.writeFresh(after, { attention: failedHooksNote(failed) }) : after;
      return { task: flagged, failed, failures };
    });
    await this.runDeferred(deferred);
    return { task: created.task, spawned: true, failedHooks: created.failed, failures: created.failures };
  }

  /**
   * Starts a waiting task: initial → start (may be vetoed, e.g. when the pool is exhausted). A task
   * put aside (`--no-spawn`) joins the queue first, so a refused start still starts it when a
   * worktree frees.
   */
  async spawn(ref: TaskRef): Promise<TransitionResult> {
    const workflow = await this.orange.workflowForProject(ref.project);
    const task = await this.orange.store.read(ref.project, ref.id);
    if (task.meta.status !== workflow.initial) {
      throw new OrangeError('E_NOT_ALLOWED', `task ${ref.id} is ${task.meta.status}; only a ${workflow.initial} task can be spawned (use respawn for a dead agent)`);
    }
    await this.orange.store.withTaskLock(ref.project, ref.id, async () => {
      if (isHeld(await this.orange.store.history(ref.project, ref.id))) await this.record(task, { type: 'task.queued' });
    });
    return this.transition(ref, workflow.start, { cause: 'spawn' });
  }

  /**
   * Handles the exit of an agent: `spawnId` (from the runtime's exit report) makes it idempotent —
   * a second report, or a poll that sees the same death, finds the spawn already cleared.
   */
  async agentExited(ref: TaskRef, role: AgentRole, spawnId: string | null, source: 'exit' | 'poll' | 'manual'): Promise<ExitOutcome> {
    const deferred: Deferred[] = [];
    const outcome = await this.orange.store.withTaskLock(ref.project, ref.id, async (): Promise<ExitOutcome> => {
      let task = await this.orange.store.read(ref.project, ref.id);
      const field = role === 'worker' ? 'worker_spawn' : 'reviewer_spawn';
      const live = task.meta[field];
      if (live === null || (spawnId !== null && live !== spawnId)) {
        return { task, decision: { kind: 'ignore', reason: 'this agent exit was already handled' } };
      }
      const refused = await this.tamperedReason(ref);
      if (refused) return { task, decision: { kind: 'ignore', reason: refused } };
      task = await this.writeFresh(task, { [field]: null });
      await this.record(task, { type: 'agent.exited', role, spawn: live, source, status: task.meta.status });
      await this.safely('agentExited', () => this.orange.hooks.agentExited.promise({ orange: this.orange, task, role, spawnId: live }));
      return this.applyExitRule(task, role, source, deferred);
    });
    await this.runDeferred(deferred);
    return outcome;
  }

  /**
   * An active task whose responsible agent is not running although no spawn is recorded (its exit
   * was handled while another role was responsible, or it was never started in this status): the
   * state's exit rule is applied once per stay in the status, as if the agent had just exited.
   */
  async agentMissing(ref: TaskRef, role: AgentRole): Promise<ExitOutcome> {
    const deferred: Deferred[] = [];
    const outcome = await this.orange.store.withTaskLock(ref.project, ref.id, async (): Promise<ExitOutcome> => {
      const task = await this.orange.store.read(ref.project, ref.id);
      const workflow = await this.orange.workflowForProject(ref.project);
      const status = task.meta.status;
      const ignore = (reason: string): ExitOutcome => ({ task, decision: { kind: 'ignore', reason } });
      if (!workflow.isActive(status) || workflow.state(status)?.agent !== role) return ignore(`the ${role} is not responsible for ${status}`);
      if (task.meta[role === 'worker' ? 'worker_spawn' : 'reviewer_spawn'] !== null) return ignore('a spawn is recorded; its exit is handled when reported');
      if (exitHandledInStatus(await this.orange.store.history(ref.project, ref.id), role)) return ignore('this agent exit was already handled');
      const runtime = this.orange.maybeSlot('runtime');
      if (!runtime || (await runtime.snapshot()).isAlive(task.meta, role)) return ignore(`the ${role} is running`);
      const refused = await this.tamperedReason(ref);
      if (refused) return ignore(refused);
      const history = await this.orange.store.history(ref.project, ref.id);
      const failedStart = failedStartInStatus(history, role);
      if (failedStart !== null && failedStart.restarts < START_RETRIES) return this.restartFailedStart(task, workflow, role, failedStart, deferred);
      await this.record(task, { type: 'agent.exited', role, spawn: null, source: 'poll', status, reason: 'no agent running and none recorded' });
      return this.applyExitRule(task, role, 'poll', deferred);
    });
    await this.runDeferred(deferred);
    return outcome;
  }

  /**
   * Starts again an agent whose start failed in Orange (a worktree or tmux step): it never ran, so
   * its absence is no crash of its own. A few tries per stay in a status; then the exit rule counts.
   */
  private async restartFailedStart(
    task: Task,
    workflow: Workflow,
    role: AgentRole,
    failed: { readonly error: string; readonly restarts: number },
    deferred: Deferred[],
  ): Promise<ExitOutcome> {
    const attempt = failed.restarts + 1;
    const reason = `its start failed (${failed.error}); starting it again (${attempt} of ${START_RETRIES})`;
    await this.record(task, { type: 'agent.restarted', role, attempt, reason });
    this.orange.log.warn('agent start failed; starting it again', { task: task.meta.id, role, attempt, error: failed.error });
    const actions = [...(task.meta.workspace ? [] : ['acquire_workspace']), role === 'worker' ? 'spawn_agent' : 'spawn_reviewer'];
    const status = task.meta.status;
    const { task: after, failed: hooks } = await this.runActions(task, workflow, actions, { from: status, to: status, cause: 'respawn', reason }, deferred);
    const current = await this.writeFresh(after, { attention: hooks.length ? failedHooksNote(hooks) : null });
    return { task: current, decision: { kind: 'restart', attempt, reason } };
  }

  /** Why exit rules must not act on a task whose TASK.md is forged, or null when it is not. */
  private async tamperedReason(ref: TaskRef): Promise<string | null> {
    try {
      await this.readVerified(ref);
      return null;
    } catch (error) {
      if (!(error instanceof OrangeError && error.code === 'E_TAMPERED')) throw error;
      // Nothing is cleared: once TASK.md is repaired, the next poll applies the exit rule.
      this.orange.log.warn('exit ignored: TASK.md was edited by hand', { task: ref.id, error: error.message });
      return 'TASK.md was edited by hand (tampered); repair it first';
    }
  }

  /** The exit rule of the task's status for an agent of `role` that is gone. Lock held. */
  private async applyExitRule(exited: Task, role: AgentRole, source: 'exit' | 'poll' | 'manual', deferred: Deferred[]): Promise<ExitOutcome> {
    let task = exited;
    const workflow = await this.orange.workflowForProject(task.meta.project);
    const decision = await decideExit(workflow, task, role, this.orange.gates);
    this.orange.log.info('agent exited', { task: task.meta.id, role, source, decision: decision.kind, reason: decision.reason });
    switch (decision.kind) {
      case 'ignore':
      case 'mark':
      case 'restart':
        return { task, decision };
      case 'advance': {
        const options: TransitionOptions = { cause: 'auto', reason: decision.reason, expectFrom: task.meta.status };
        return this.autoTransition(task, decision, decision.to, options, deferred);
      }
      case 'crash':
      case 'escalate': {
        task = await this.writeFresh(task, { crash_count: decision.crashCount });
        await this.record(task, { type: 'agent.crashed', status: task.meta.status, crash_count: decision.crashCount, reason: decision.reason, role });
        await this.safely('crash', () =>
          this.orange.hooks.crash.promise({ orange: this.orange, task, status: task.meta.status, crashCount: decision.crashCount, reason: decision.reason }),
        );
        if (decision.kind === 'escalate') {
          const options: TransitionOptions = { cause: 'crash', crash: true, reason: `crash limit reached: ${decision.reason}` };
          return this.autoTransition(task, decision, decision.to, options, deferred);
        }
        if (decision.respawn) {
          const action = role === 'worker' ? 'spawn_agent' : 'spawn_reviewer';
          const { task: after, failed } = await this.runActions(task, workflow, [action], { from: task.meta.status, to: task.meta.status, cause: 'respawn' }, deferred);
          task = failed.length ? await this.writeFresh(after, { attention: failedHooksNote(failed) }) : after;
        }
        return { task, decision };
      }
    }
  }

  /**
   * An exit rule's transition. A refusal (a plugin's veto) must not leave a task with no agent
   * and no sign of it: the task is flagged for attention and the refusal recorded.
   */
  private async autoTransition(task: Task, decision: ExitDecision, to: string, options: TransitionOptions, deferred: Deferred[]): Promise<ExitOutcome> {
    try {
      const result = await this.transitionLocked(task, to, options, deferred);
      return { task: result.task, decision };
    } catch (error) {
      if (!(error instanceof TransitionRefused)) throw error;
      const flagged = await this.writeFresh(task, { attention: `exit rule refused: ${error.message}` });
      await this.record(flagged, { type: 'auto.refused', from: task.meta.status, to, code: error.code, reason: error.message });
      this.orange.log.warn('exit rule transition refused', { task: task.meta.id, from: task.meta.status, to, reason: error.message });
      return { task: flagged, decision };
    }
  }

  /**
   * Starts the responsible agent again for an active task whose agent is dead
   * (`orange task respawn`). Refused when the agent is still alive.
   */
  async respawn(ref: TaskRef): Promise<Task> {
    // A workflow whose agent is not a harness (the pipeline's driver) restarts through its plugin.
    const seen = await this.readVerified(ref);
    const taken = await this.orange.hooks.respawn.promise({ orange: this.orange, task: seen, workflow: await this.orange.workflowForProject(ref.project) });
    if (taken) return taken;
    const deferred: Deferred[] = [];
    const task = await this.orange.store.withTaskLock(ref.project, ref.id, async () => {
      const current = await this.readVerified(ref);
      const workflow = await this.orange.workflowForProject(ref.project);
      const status = current.meta.status;
      if (!workflow.isActive(status)) {
        throw new OrangeError('E_NOT_ALLOWED', `task ${ref.id} is ${status}; only an active task can be respawned`);
      }
      const role: AgentRole = workflow.state(status)?.agent ?? 'worker';
      const runtime = this.orange.maybeSlot('runtime');
      if (runtime && (await runtime.snapshot()).isAlive(current.meta, role)) {
        throw new OrangeError('E_NOT_ALLOWED', `the ${role} of task ${ref.id} is still running; attach with: orange task attach ${ref.id}`);
      }
      const actions = [...(current.meta.workspace ? [] : ['acquire_workspace']), role === 'worker' ? 'spawn_agent' : 'spawn_reviewer'];
      const { task: after, failed, failures } = await this.runActions(current, workflow, actions, { from: status, to: status, cause: 'respawn' }, deferred);
      if (failed.length) {
        await this.writeFresh(after, { attention: failedHooksNote(failed) });
        // The action's own error is the answer (a missing harness, an exhausted pool), not only its name.
        const reasons = failures.map((f) => `${f.action}: ${f.message}`).join('; ');
        throw new OrangeError(failedCode(failures), `respawn of task ${ref.id} failed: ${reasons}`, { failedHooks: failed, failures });
      }
      return this.writeFresh(after, { attention: null });
    });
    await this.runDeferred(deferred);
    return task;
  }

  /**
   * Changes a task's summary and/or branch (`orange task update --summary/--branch`). A branch
   * is renamed in the task's worktree by the workspace provider (which, given `null`, adopts the
   * branch the agent already switched to); a branch another live task holds is refused.
   */
  async edit(ref: TaskRef, changes: TaskEdit): Promise<{ task: Task; changed: string[] }> {
    return this.orange.store.withTaskLock(ref.project, ref.id, async () => this.editLocked(await this.readVerified(ref), changes));
  }

  /**
   * A request from the CLI: a status change and/or an edit, checked and applied in one critical
   * section, so a refused request changes nothing whatever runs beside it. The status change is
   * checked (map, guard, gate, vetoes) before anything is written; then the edit, then the transition.
   */
  async request(ref: TaskRef, request: TaskRequest): Promise<RequestResult> {
    const deferred: Deferred[] = [];
    const result = await this.orange.store.withTaskLock(ref.project, ref.id, async (): Promise<RequestResult> => {
      const task = await this.readVerified(ref);
      const options: TransitionOptions = { cause: request.cause ?? 'request', ...(request.reason ? { reason: request.reason } : {}) };
      const prepared = request.status === undefined ? null : await this.prepareTransition(task, request.status, options);
      const editing = request.summary !== undefined || request.branch !== undefined;
      const edited = editing ? await this.editLocked(task, { summary: request.summary, branch: request.branch }) : { task, changed: [] };
      if (prepared === null) return { task: edited.task, edited: edited.changed, transition: null };
      const event = { ...prepared.event, task: edited.task };
      const transition = await this.applyTransition({ ...prepared, event }, deferred);
      return { task: transition.task, edited: edited.changed, transition };
    });
    await this.runDeferred(deferred);
    return result;
  }

  private async editLocked(task: Task, changes: TaskEdit): Promise<{ task: Task; changed: string[] }> {
    const ref = { project: task.meta.project, id: task.meta.id };
    const workflow = await this.orange.workflowForProject(ref.project);
    const patch: Partial<TaskMeta> = {};
    if (changes.summary !== undefined) {
      const summary = oneLineSummary(changes.summary);
      if (summary !== task.meta.summary) patch.summary = summary;
    }
    if (changes.branch !== undefined) {
      const wanted = changes.branch === null ? null : assertBranchName(changes.branch);
      if (wanted !== null) {
        const { tasks } = await this.orange.store.list(ref.project);
        const holder = tasks.find((t) => t.meta.id !== ref.id && t.meta.branch === wanted && !workflow.isTerminal(t.meta.status));
        if (holder) throw new OrangeError('E_TASK_EXISTS', `branch ${wanted} already has task ${holder.meta.id} (${holder.meta.status})`);
      }
      const provider = this.orange.maybeSlot('workspaces');
      let branch: string;
      if (task.meta.workspace && provider?.renameBranch) branch = await provider.renameBranch(task.meta, wanted);
      else if (wanted !== null) branch = wanted;
      else throw new OrangeError('E_INVALID_INPUT', `task ${ref.id} has no worktree to read the branch from; name it: --branch NAME`);
      if (branch !== task.meta.branch) patch.branch = branch;
    }
    const changed = Object.keys(patch);
    if (changed.length === 0) return { task, changed };
    const written = await this.orange.store.update(ref.project, ref.id, patch);
    const diff = Object.fromEntries(changed.map((k) => [k, { from: (task.meta as Record<string, unknown>)[k], to: (patch as Record<string, unknown>)[k] }]));
    await this.record(written, { type: 'task.updated', ...diff });
    this.orange.log.info('task updated', { task: ref.id, ...diff });
    return { task: written, changed };
  }

  /**
   * Replaces one `## name` section of a task's TASK.md body (appending it when missing) under the
   * task lock, keeping every other byte and any concurrent edit of the rest of the body
   * (`orange task section set`): agents write artifacts without editing the file with regexes.
   * (An action or an afterTransition tap, which run under the lock, use their own `writeSection`.)
   */
  async writeSection(ref: TaskRef, name: string, content: string): Promise<Task> {
    checkSection(name, content);
    return this.orange.store.withTaskLock(ref.project, ref.id, () => this.writeSectionLocked(ref, name, content));
  }

  private async writeSectionLocked(ref: TaskRef, name: string, content: string): Promise<Task> {
    await this.readVerified(ref);
    const task = await this.orange.store.update(ref.project, ref.id, {}, (body) => setSection(body, name, content));
    await this.record(task, { type: 'section.written', section: name, bytes: Buffer.byteLength(content.trim()) });
    this.orange.log.info('section written', { task: ref.id, section: name });
    return task;
  }

  /**
   * Restores every engine-owned field TASK.md shows forged (and a status the ledger disagrees with)
   * to its value of record, keeping the body and the free fields; returns what was restored.
   */
  async repair(ref: TaskRef): Promise<{ task: Task; from: string; to: string; repaired: boolean; fields: string[] }> {
    return this.orange.store.withTaskLock(ref.project, ref.id, async () => {
      const { task, tampered } = await this.orange.store.inspect(ref.project, ref.id, { acceptForeign: true });
      const ledger = await this.orange.store.ledgerStatus(ref.project, ref.id);
      const shown = tampered.find((t) => t.field === 'status')?.found;
      const from = typeof shown === 'string' ? shown : task.meta.status;
      const to = ledger ?? task.meta.status;
      const fields = [...new Set([...tampered.map((t) => t.field), ...(to !== task.meta.status ? ['status'] : [])])];
      if (fields.length === 0) return { task, from: to, to, repaired: false, fields };
      const repaired = await this.orange.store.restore(ref.project, ref.id, to);
      await this.record(repaired, { type: 'status.repaired', from, to, fields });
      this.orange.log.warn('tampered task repaired', { task: ref.id, from, to, fields });
      return { task: repaired, from, to, repaired: true, fields };
    });
  }

  /** Writes `patch` over the task as it is on disk now (the agent may have edited the body). Lock held. */
  private async writeFresh(task: Task, patch: Partial<TaskMeta>): Promise<Task> {
    const fresh = await this.orange.store.read(task.meta.project, task.meta.id);
    const meta = fresh.meta as Record<string, unknown>;
    if (Object.entries(patch).every(([k, v]) => meta[k] === v)) return fresh;
    return this.orange.store.update(task.meta.project, task.meta.id, patch);
  }

  private async record(task: Task, event: Omit<HistoryEvent, 'timestamp'>): Promise<void> {
    await this.orange.store.appendHistory(task.meta.project, task.meta.id, event);
  }

  private async runDeferred(deferred: Deferred[]): Promise<void> {
    for (const fn of deferred) {
      await fn().catch((error: unknown) => this.orange.log.error('deferred action failed', { error: String(error) }));
    }
  }

  /** Lifecycle hooks observe; their failures are logged and never undo a transition. */
  private async safely(hook: string, fn: () => Promise<unknown>): Promise<void> {
    try {
      await fn();
    } catch (error) {
      this.orange.log.error('lifecycle hook failed', { hook, error: error instanceof Error ? error.message : String(error) });
    }
  }
}

/** Largest text `writeSection` takes for one section (TASK.md itself is capped at 8 MB). */
const SECTION_MAX_BYTES = 1024 * 1024;

/** Refuses a section name or text `writeSection` must not write (E_INVALID_INPUT), before anything is locked. */
function checkSection(name: string, content: string): void {
  const problem = sectionNameProblem(name);
  if (problem) throw new OrangeError('E_INVALID_INPUT', `section "${oneLineSummary(name).slice(0, 60)}": ${problem}`);
  if (Buffer.byteLength(content) > SECTION_MAX_BYTES) {
    throw new OrangeError('E_INVALID_INPUT', `section ${name}: the text is larger than ${SECTION_MAX_BYTES / 1024 / 1024} MB`);
  }
  const stray = strayHeading(content);
  if (stray !== null) {
    throw new OrangeError('E_INVALID_INPUT', `section ${name}: the text has its own level-2 heading "## ${oneLineSummary(stray).slice(0, 60)}", which would start another section; use ### inside a section`);
  }
}

/** Which check raised each refusal code (E_TAMPERED is a refusal to read, not a transition check). */
const REFUSAL_CHECKS: Partial<Record<string, RefusalCheck>> = {
  E_ILLEGAL_TRANSITION: 'map',
  E_GUARD_FAILED: 'guard',
  E_GATE_FAILED: 'gate',
  E_VETOED: 'veto',
};

/** The `attention` note for actions that failed after a write: `hook failed: a` / `hooks failed: a, b`. */
function failedHooksNote(failed: readonly string[]): string {
  return `hook${failed.length > 1 ? 's' : ''} failed: ${failed.join(', ')}`;
}

/** The code of the first failure that has one (E_HARNESS, E_POOL_EXHAUSTED, …), else E_RUNTIME. */
function failedCode(failures: readonly ActionFailure[]): ErrorCode {
  return (failures.find((f) => f.code !== undefined)?.code as ErrorCode | undefined) ?? 'E_RUNTIME';
}

/** A field value for a one-line message: quoted, and cut short (a forged value may be huge). */
function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? 'null';
  return text.length > 60 ? `${text.slice(0, 57)}…"` : text;
}

const CORE_FIELDS: ReadonlySet<string> = new Set(TASK_META_ORDER);

/** A move's `fields`, refused (a caller's bug, before anything is written) when one is the core's own. */
function workflowFields(fields: Readonly<Record<string, string | number | boolean | null>>): Readonly<Record<string, string | number | boolean | null>> {
  const owned = Object.keys(fields).find((key) => CORE_FIELDS.has(key));
  if (owned !== undefined) throw new OrangeError('E_INVALID_INPUT', `a transition cannot set the core field "${owned}"; only workflow fields ride a move`);
  return fields;
}
