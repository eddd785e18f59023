import type { NotificationInput } from './notification.js';
import type { Actor, ExitDecision, Workflow } from '../workflow/index.js';
import type { AgentRole, Task } from '../task/index.js';

/** Why a transition or action is happening. */
export type Cause = 'request' | 'auto' | 'crash' | 'create' | 'respawn' | 'spawn';

/** Identifies a task on disk. */
export interface TaskRef {
  readonly project: string;
  readonly id: string;
}

export interface TransitionOptions {
  readonly cause?: Cause;
  /**
   * Who asks (the workflow's `by`): the task's agent, a person, or Orange itself (default: a plugin's
   * or the engine's own call). A transition the actor may not take is refused (E_FORBIDDEN).
   */
  readonly actor?: Actor;
  /**
   * The move's own effect on the world outside Orange's files (a merge and push): run under the
   * task lock once every check (map, authority, guard, gate, every veto) passed and before the
   * status is written. When it throws, nothing is written and the error is the answer.
   */
  readonly effect?: (task: Task) => Promise<void>;
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
  /** Who creates it, for its first move (default Orange; `orange task create` is a person's). */
  readonly actor?: Actor;
  /** The workflow the task runs for life (default: its project's, then the config's). */
  readonly workflow?: string;
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
  /** Who asks for the status change (default Orange; `orange task update` is the agent's). */
  readonly actor?: Actor;
}

export interface RequestResult {
  readonly task: Task;
  /** Fields the edit changed (`summary`, `branch`). */
  readonly edited: readonly string[];
  /** The status change, when one was requested. */
  readonly transition: TransitionResult | null;
}

/** `orange.engine`: every move of a task, and what a plugin may ask of the state machine. */
export interface Engine {
  /** Requests a status change; throws TransitionRefused (nothing changed) or returns the result. */
  transition(ref: TaskRef, to: string, options?: TransitionOptions): Promise<TransitionResult>;
  /** Reads a task, refusing (E_TAMPERED) one whose TASK.md shows engine-owned fields the engine never wrote. */
  readVerified(ref: TaskRef): Promise<Task>;
  /** The legal targets from a status (for messages and UIs). */
  targets(workflow: Workflow, status: string): string[];
  /** Renders the prompt for an agent of `role` spawned into the task's current status. */
  prompt(workflow: Workflow, task: Task, role: AgentRole, respawn: boolean): Promise<string>;
  /** Creates a task, then (unless `spawn: false`) starts it. */
  createTask(input: CreateTaskInput): Promise<CreateTaskResult>;
  /** Starts a waiting task: initial → start (may be vetoed, e.g. when the pool is exhausted). */
  spawn(ref: TaskRef, options?: { readonly actor?: Actor }): Promise<TransitionResult>;
  /** Handles the exit of an agent; `spawnId` makes it idempotent. */
  agentExited(ref: TaskRef, role: AgentRole, spawnId: string | null, source: 'exit' | 'poll' | 'manual'): Promise<ExitOutcome>;
  /** An active task whose responsible agent is not running although no spawn is recorded. */
  agentMissing(ref: TaskRef, role: AgentRole): Promise<ExitOutcome>;
  /** Starts the responsible agent again for an active task whose agent is dead. */
  respawn(ref: TaskRef): Promise<Task>;
  /** Changes a task's summary and/or branch. */
  edit(ref: TaskRef, changes: TaskEdit): Promise<{ task: Task; changed: string[] }>;
  /** A status change and/or an edit, checked and applied in one critical section. */
  request(ref: TaskRef, request: TaskRequest): Promise<RequestResult>;
  /** Replaces one `## name` section of a task's TASK.md body under the task lock. */
  writeSection(ref: TaskRef, name: string, content: string): Promise<Task>;
  /** Restores every engine-owned field TASK.md shows forged to its value of record. */
  repair(ref: TaskRef): Promise<{ task: Task; from: string; to: string; repaired: boolean; fields: string[] }>;
}
