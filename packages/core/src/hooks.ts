import { AsyncSeriesBailHook, AsyncSeriesHook, AsyncSeriesWaterfallHook, HookMap } from 'tapable';
import type { HistoryEvent } from './store/history.js';
import type { AgentRole, Task, TaskMeta } from './task.js';
import type { Logger } from './log.js';
import type { Orange } from './orange.js';
import type { Transition, Workflow } from './workflow/workflow.js';

/** Why a transition or action is happening. */
export type Cause = 'request' | 'auto' | 'crash' | 'create' | 'respawn' | 'spawn';

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
}

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

/** Which check refused a transition: the transition map, a guard, a gate, or a plugin's veto. */
export type RefusalCheck = 'map' | 'guard' | 'gate' | 'veto';

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

export interface PromptEvent extends TaskEvent {
  readonly role: AgentRole;
  readonly respawn: boolean;
}

/**
 * What a transition action (`spawn_agent`, `release_workspace`, …) is given. Actions run with
 * the task lock held, after the new status is written; they must be idempotent.
 */
export interface ActionContext {
  readonly action: string;
  readonly orange: Orange;
  readonly workflow: Workflow;
  /** Null when the action runs because the task was just created in `to`. */
  readonly from: string | null;
  readonly to: string;
  readonly cause: Cause;
  readonly log: Logger;
  /** The task as it is now (refreshed by `update`). */
  readonly task: Task;
  /** Writes frontmatter fields (the lock is already held) and refreshes `task`. */
  update(patch: Partial<TaskMeta>): Promise<Task>;
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

/** Creates the bus. Every hook Orange has is declared here, once. */
export function createHooks() {
  return Object.freeze({
    /** A task was created: its TASK.md and history exist; it has not been started yet. */
    taskCreated: new AsyncSeriesHook<[TaskEvent]>(['event']),
    /** Before the status is written. Return a string to veto: it becomes the refusal reason. */
    beforeTransition: new AsyncSeriesBailHook<[TransitionEvent], string | undefined | void>(['event']),
    /**
     * A transition was refused by the map, a guard, a gate or a veto (nothing was written), for a
     * request or an exit rule: for notifiers and audit logs. Observes only; the lock is held.
     */
    transitionRefused: new AsyncSeriesHook<[TransitionRefusedEvent]>(['event']),
    /** After the status is written and every action ran. */
    afterTransition: new AsyncSeriesHook<[TransitionEvent]>(['event']),
    /** An action failed after the status was written (the task is flagged for attention). */
    hookFailed: new AsyncSeriesHook<[HookFailedEvent]>(['event']),
    agentSpawned: new AsyncSeriesHook<[AgentEvent]>(['event']),
    agentExited: new AsyncSeriesHook<[AgentEvent]>(['event']),
    /** An agent exited without its artifact; `crashCount` is the new count. */
    crash: new AsyncSeriesHook<[CrashEvent]>(['event']),
    /** Exit monitoring moved a task on its own. */
    autoAdvanced: new AsyncSeriesHook<[AutoAdvancedEvent]>(['event']),
    /** Each tap may refine the prompt text an agent is started with. */
    prompt: new AsyncSeriesWaterfallHook<[string, PromptEvent]>(['prompt', 'event']),
    /** Transition actions by name; a workflow may only name actions some plugin taps. */
    actions: new HookMap((name: string) => new AsyncSeriesHook<[ActionContext]>(['context'], name)),
  });
}

/** The bus type: `orange.hooks`. */
export type OrangeHooks = ReturnType<typeof createHooks>;
