import type { AsyncSeriesBailHook, AsyncSeriesHook, AsyncSeriesWaterfallHook, HookMap } from 'tapable';
import type { OrangeConfig } from '../config/index.js';
import type { Logger } from '../log/index.js';
import type { HistoryEvent, OrangePaths, ProjectStore, TaskStore } from '../store/index.js';
import type { AgentRole, Task, TaskMeta } from '../task/index.js';
import type { Gate, Transition, Workflow, WorkflowInput } from '../workflow/index.js';
import type { Cause, Engine } from './engine.js';
import type { Notification, Notifications } from './notification.js';
import type { PullRequestFeedback } from './pull-request.js';
import type { Harness, Slots } from './slots.js';

/**
 * One Orange instance as plugins (and every room above this one) see it: the bus, the stores, the
 * registered gates, harnesses and workflows, the filled slots, the engine and the notifications.
 * Plugins receive it in `apply`; `orange.ts` builds the one implementation.
 */
export interface Orange {
  readonly hooks: OrangeHooks;
  readonly paths: OrangePaths;
  readonly store: TaskStore;
  readonly projects: ProjectStore;
  readonly log: Logger;
  readonly config: OrangeConfig;
  readonly engine: Engine;
  /** Notifier registry and delivery (`register`, `raise`, `settle`, the outbox). */
  readonly notifications: Notifications;
  /** Path of the `orange` CLI entry script, for plugins that start agents which call it. */
  readonly cliEntry: string | undefined;
  /** The config file the config came from (for messages). */
  readonly configFile: string | null;
  readonly gates: Map<string, Gate>;
  readonly harnesses: Map<string, Harness>;
  /** Each harness a plugin registered under a name another plugin had registered first: the later one is used (`orange doctor` lists these). */
  readonly harnessReplacements: readonly HarnessReplacement[];
  /** Names of the applied plugins, in order. */
  readonly plugins: string[];
  /** The harnesses that start agent CLIs, in registration order (not Orange's own, like the pipeline driver). */
  agentHarnessNames(): string[];
  /** Fills a slot (runtime, workspaces, scm). A later plugin replaces an earlier one. */
  provide<K extends keyof Slots>(slot: K, implementation: Slots[K]): void;
  /** The plugin filling `slot`; throws E_NO_PROVIDER naming the slot when none does. */
  slot<K extends keyof Slots>(slot: K): Slots[K];
  /** The plugin filling `slot`, or undefined. */
  maybeSlot<K extends keyof Slots>(slot: K): Slots[K] | undefined;
  registerGate(name: string, gate: Gate): void;
  registerHarness(harness: Harness): void;
  /** Adds a named workflow (e.g. from a plugin), remembering the plugin whose `apply` registers it. */
  registerWorkflow(workflow: WorkflowInput): void;
  /** The plugin that registered workflow `name` (null: outside any `apply`; undefined: built-in or config). */
  workflowPlugin(name: string): string | null | undefined;
  readonly defaultWorkflowName: string;
  readonly workflowNames: string[];
  /** Action names some plugin has tapped. */
  providedActions(): Set<string>;
  /** A validated workflow by name; every gate and action it names must be registered. */
  workflow(name?: string): Workflow;
  /** The workflow a project gives its new tasks. */
  workflowForProject(project: string): Promise<Workflow>;
  /** The workflow a task runs: the one it was created with (`workflow`), else its project's (a task from before that field). */
  workflowFor(task: Pick<TaskMeta, 'project'> & { readonly workflow?: string | null }): Promise<Workflow>;
  /** The harness for an agent: the task's own choice, else the config default for the role, else the first installed one. */
  resolveHarness(task: TaskMeta, role: AgentRole): Promise<Harness>;
}

/** The bus, `orange.hooks`: every hook Orange has, declared here once (`createHooks` builds it). */
export interface OrangeHooks {
  /** A task was created: its TASK.md and history exist; it has not been started yet. */
  readonly taskCreated: AsyncSeriesHook<[TaskEvent]>;
  /** Before the status is written. Return a string to veto: it becomes the refusal reason. */
  readonly beforeTransition: AsyncSeriesBailHook<[TransitionEvent], string | undefined | void>;
  /**
   * A transition was refused by the map, a guard, a gate or a veto (nothing was written), for a
   * request or an exit rule: for notifiers and audit logs. Observes only; the lock is held.
   */
  readonly transitionRefused: AsyncSeriesHook<[TransitionRefusedEvent]>;
  /**
   * The new status and its ledger entry are written, before any action runs (the lock is held):
   * for a record that must say what the status says from that moment on — the pipeline's
   * checkpoint — not seconds later, after the actions. Taps only write their own files: they
   * must not move or write the task. A failing tap is logged, never stops the move.
   */
  readonly statusWritten: AsyncSeriesHook<[TransitionEvent]>;
  /** After the status is written and every action ran; the lock is held (write through the event). */
  readonly afterTransition: AsyncSeriesHook<[AfterTransitionEvent]>;
  /** An action failed after the status was written (the task is flagged for attention). */
  readonly hookFailed: AsyncSeriesHook<[HookFailedEvent]>;
  readonly agentSpawned: AsyncSeriesHook<[AgentEvent]>;
  readonly agentExited: AsyncSeriesHook<[AgentEvent]>;
  /** An agent exited without its artifact; `crashCount` is the new count. */
  readonly crash: AsyncSeriesHook<[CrashEvent]>;
  /** Exit monitoring moved a task on its own. */
  readonly autoAdvanced: AsyncSeriesHook<[AutoAdvancedEvent]>;
  /**
   * A notification is being delivered (status reached, task created in one, crash, failed action,
   * refused automatic move, stale task, reaction). Taps observe, beside the routed notifiers, in
   * the process that delivers: the outbox's deliverer for what a one-shot CLI call raised, else
   * the raising process (docs/notifications.md). Not awaited by transitions; bounded by
   * `notifications.timeoutMs`.
   */
  readonly notification: AsyncSeriesHook<[NotificationEvent]>;
  /** The monitor read an open pull request's checks and reviews; reactions tap this. */
  readonly pullRequestChecked: AsyncSeriesHook<[PullRequestEvent]>;
  /**
   * Before a respawn starts the status's agent with its harness: a tap that restarts the task its
   * own way returns the task as it is after (the pipeline resumes its driver). Called without the
   * task lock; the engine's own respawn runs when every tap returns undefined.
   */
  readonly respawn: AsyncSeriesBailHook<[RespawnEvent], Task | undefined | void>;
  /** Each tap may refine the prompt text an agent is started with. */
  readonly prompt: AsyncSeriesWaterfallHook<[string, PromptEvent]>;
  /**
   * The command an agent is about to be started with, an agent in a terminal (the tmux plugin's
   * spawn) or a headless run (a pipeline phase): each tap may return it changed — a runtime that
   * runs agents elsewhere (a container) wraps it here. Taps must keep it an argument array.
   */
  readonly agentCommand: AsyncSeriesWaterfallHook<[AgentCommand, AgentCommandEvent]>;
  /**
   * The pipeline workflow's classifier: a tap that returns a classification replaces the
   * headless classifier agent (a team's own rules, a cheaper model, …).
   */
  readonly classify: AsyncSeriesBailHook<[ClassifyEvent], Classification | undefined | void>;
  /**
   * A pipeline task stopped for a reason someone should hear about (breaker, top tier used up,
   * budget), after the move, which carried its `pipeline.<kind>` notification; taps observe.
   */
  readonly pipelineNotice: AsyncSeriesHook<[PipelineNoticeEvent]>;
  /**
   * Each plugin looks for what it leaves outside Orange's files that no task owns any more (a
   * runtime's containers, …): `orange doctor` reports them (`remove` false), `orange workspace gc`
   * removes them (`remove` true). Taps add one line per thing to `found`.
   */
  readonly sweep: AsyncSeriesHook<[SweepEvent]>;
  /** Transition actions by name; a workflow may only name actions some plugin taps. */
  readonly actions: HookMap<AsyncSeriesHook<[ActionContext]>>;
}

export interface TaskEvent {
  readonly orange: Orange;
  readonly task: Task;
}

export interface TransitionEvent extends TaskEvent {
  readonly workflow: Workflow;
  readonly transition: Transition;
  readonly from: string;
  readonly to: string;
  readonly cause: Cause;
  /** Why, when the caller said (an exit rule, a pull request state, a reaction). */
  readonly reason?: string;
  /**
   * False when the caller raises its own, more specific notification for this move (the
   * pipeline's breaker, top tier, budget): the core's `status.changed` one is then not raised.
   */
  readonly notify?: boolean;
}

/**
 * What afterTransition taps get: the transition, with the task lock still held. A tap that writes
 * to the task does it through `update` / `writeSection` (see `LockedTaskWrites`).
 */
export interface AfterTransitionEvent extends TransitionEvent, LockedTaskWrites {}

export interface HookFailedEvent extends TaskEvent {
  readonly action: string;
  readonly error: Error;
}

export interface AgentEvent extends TaskEvent {
  readonly role: AgentRole;
  readonly spawnId: string;
}

export interface CrashEvent extends TaskEvent {
  readonly status: string;
  readonly crashCount: number;
  readonly reason: string;
}

export interface AutoAdvancedEvent extends TaskEvent {
  readonly from: string;
  readonly to: string;
  readonly reason: string;
}

/** Which check refused a transition: the transition map, who may take it, a guard, a gate, or a plugin's veto. */
export type RefusalCheck = 'map' | 'authority' | 'guard' | 'gate' | 'veto';

/**
 * A transition was refused and nothing was written: asked for (`request`: the CLI, an agent, a
 * spawn) or taken by an exit rule (`exit-rule`: exit monitoring, causes `auto` and `crash`).
 */
export interface TransitionRefusedEvent extends TaskEvent {
  readonly from: string;
  readonly to: string;
  readonly cause: Cause;
  readonly source: 'request' | 'exit-rule';
  readonly check: RefusalCheck;
  /** The refusal's error code (`E_ILLEGAL_TRANSITION`, `E_GUARD_FAILED`, `E_GATE_FAILED`, `E_VETOED`). */
  readonly code: string;
  /** The reason alone (a gate's or a veto's sentence), without `from → to refused:`. */
  readonly reason: string;
}

/** `orange task respawn` (and the dashboard's Enter) on an active task whose agent is not running. */
export interface RespawnEvent extends TaskEvent {
  readonly workflow: Workflow;
}

/** A harness registered again under its name by another plugin. */
export interface HarnessReplacement {
  readonly harness: string;
  /** The plugin whose harness was replaced (null: registered outside any plugin). */
  readonly replaced: string | null;
  readonly by: string | null;
}

/** A command Orange is about to start for an agent. */
export interface AgentCommand {
  readonly argv: readonly string[];
  /** What Orange sets for it on top of the environment it inherits (an agent's: its `ORANGE_*`, `PATH`, the harness's own). */
  readonly env: Readonly<Record<string, string>>;
  /** Where it starts: the task's worktree. */
  readonly cwd: string;
}

/** Which agent a command starts: a worker or reviewer in a terminal, or one headless run. */
export interface AgentCommandEvent extends TaskEvent {
  readonly run:
    | {
        readonly kind: 'terminal';
        readonly role: AgentRole;
        readonly spawnId: string;
        /** The harness starts Orange's own code (the pipeline driver), not an agent: a runtime that isolates agents leaves it on the host. */
        readonly internal: boolean;
      }
    | { readonly kind: 'headless'; readonly phase: string };
}

export interface SweepEvent {
  readonly orange: Orange;
  /** Only this project's leftovers (every project's when undefined). */
  readonly project: string | undefined;
  /** Remove what is found (`workspace gc`), or only report it (`doctor`). */
  readonly remove: boolean;
  /** One line per leftover: what it is and, when `remove`, that it was removed. */
  readonly found: string[];
}

export interface PromptEvent extends TaskEvent {
  readonly role: AgentRole;
  readonly respawn: boolean;
}

export interface NotificationEvent {
  readonly orange: Orange;
  readonly notification: Notification;
}

/** What the monitor's pull request sync found on an open pull request. */
export interface PullRequestEvent extends TaskEvent {
  readonly workflow: Workflow;
  readonly feedback: PullRequestFeedback;
  /** Adds a line to the monitor's report (`reaction ci-failed fired`, …). */
  report(entry: { reaction: string; outcome: string }): void;
}

/** What a pipeline classifier is given: the task (its summary and `## Context`) and the intents configured. */
export interface ClassifyEvent extends TaskEvent {
  readonly intents: readonly string[];
}

/** A classification: the intent, how sure (0..1), and what it cost. */
export interface Classification {
  readonly intent: string;
  readonly confidence: number;
  readonly costUsd?: number;
  /** What the classifier would need to know to be sure: asked of a person when it is not confident enough (`## Questions`). */
  readonly questions?: readonly string[];
}

/** A pipeline task could not go on (circuit breaker tripped, top tier used up): for notifiers. */
export interface PipelineNoticeEvent extends TaskEvent {
  readonly kind: 'breaker' | 'exhausted' | 'budget';
  readonly message: string;
  /** The move it caused (`retrying → failed`, `executing → stopped`, …); `task` is the task after it. */
  readonly from: string;
  readonly to: string;
}

/**
 * Writes to a task while the engine holds its lock (in an action, in an afterTransition tap): the
 * only way to write from there, since the store's own locked calls would wait for that very lock.
 * Each write refreshes `task`, and the engine returns the task as these writes left it.
 */
export interface LockedTaskWrites {
  /** The task as it is now (refreshed by every write). */
  readonly task: Task;
  /** Writes frontmatter fields and refreshes `task`. */
  update(patch: Partial<TaskMeta>): Promise<Task>;
  /**
   * Replaces one `## name` section of the body (appending it when missing), checked and recorded
   * as `orange task section set` does (`section.written`), and refreshes `task`.
   */
  writeSection(name: string, content: string): Promise<Task>;
}

/**
 * What a transition action (`spawn_agent`, `release_workspace`, …) is given. Actions run with
 * the task lock held, after the new status is written; they must be idempotent.
 */
export interface ActionContext extends LockedTaskWrites {
  readonly action: string;
  readonly orange: Orange;
  readonly workflow: Workflow;
  /** Null when the action runs because the task was just created in `to`. */
  readonly from: string | null;
  readonly to: string;
  readonly cause: Cause;
  /** Why the transition happens, when its caller said (a cancel, a budget stop, an exit rule); absent for create actions and a crashed agent's respawn; a restart after a failed start says why. */
  readonly reason?: string;
  readonly log: Logger;
  /** Appends a history event for this task. */
  record(event: Omit<HistoryEvent, 'timestamp'>): Promise<void>;
  /** The prompt for an agent of `role` spawned now, rendered and passed through the prompt hook. */
  prompt(role: AgentRole, respawn?: boolean): Promise<string>;
  /**
   * Runs `fn` after the transition is complete and the lock released. For work that may end
   * the calling process, e.g. killing the tmux window the calling agent itself runs in.
   */
  defer(fn: () => Promise<void>): void;
}
