import type {
  CreateTaskInput,
  CreateTaskResult,
  Engine as EngineApi,
  ExitOutcome,
  Orange,
  RequestResult,
  TaskEdit,
  TaskRef,
  TaskRequest,
  TransitionOptions,
  TransitionResult,
} from '../plugin/index.js';
import type { AgentRole, Task } from '../task/index.js';
import type { Actor, Workflow } from '../workflow/index.js';
import { createTask, respawn, spawn } from './create.js';
import { edit, repair, request, writeSection } from './edits.js';
import { agentExited, agentMissing } from './exits.js';
import { Mover } from './move.js';
import { agentPrompt } from './prompt.js';

/**
 * The state machine's executor: `orange.engine`. Every status change, from the CLI, an agent or the
 * exit monitor, goes through the move (move.ts: map → guard → gate → vetoes → write → actions →
 * reset → history); this class is the door to it and to what is built on it.
 */
export class Engine implements EngineApi {
  private readonly mover: Mover;

  constructor(orange: Orange) {
    this.mover = new Mover(orange);
  }

  /** Requests a status change; throws TransitionRefused (nothing changed) or returns the result. */
  transition(ref: TaskRef, to: string, options: TransitionOptions = {}): Promise<TransitionResult> {
    return this.mover.transition(ref, to, options);
  }

  /**
   * Reads a task and refuses it (E_TAMPERED) when TASK.md shows an engine-owned field with a value
   * the engine never wrote (a hand-edited status, branch, id, …), or its status disagrees with the ledger.
   */
  readVerified(ref: TaskRef): Promise<Task> {
    return this.mover.readVerified(ref);
  }

  /** The legal targets from a task's status (for messages and UIs). */
  targets(workflow: Workflow, status: string): string[] {
    return this.mover.targets(workflow, status);
  }

  /** Renders the prompt for an agent of `role` spawned into the task's current status. */
  prompt(workflow: Workflow, task: Task, role: AgentRole, respawning: boolean): Promise<string> {
    return agentPrompt(this.mover.orange, workflow, task, role, respawning);
  }

  /** Creates a task, then (unless `spawn: false`) starts it: pending → start, or the create actions. */
  createTask(input: CreateTaskInput): Promise<CreateTaskResult> {
    return createTask(this.mover, input);
  }

  /** Starts a waiting task: initial → start (may be vetoed, e.g. when the pool is exhausted). */
  spawn(ref: TaskRef, options: { readonly actor?: Actor } = {}): Promise<TransitionResult> {
    return spawn(this.mover, ref, options);
  }

  /** Starts the responsible agent again for an active task whose agent is dead (`orange task respawn`). */
  respawn(ref: TaskRef): Promise<Task> {
    return respawn(this.mover, ref);
  }

  /** Handles the exit of an agent; `spawnId` (from the runtime's exit report) makes it idempotent. */
  agentExited(ref: TaskRef, role: AgentRole, spawnId: string | null, source: 'exit' | 'poll' | 'manual'): Promise<ExitOutcome> {
    return agentExited(this.mover, ref, role, spawnId, source);
  }

  /** An active task whose responsible agent is not running although no spawn is recorded. */
  agentMissing(ref: TaskRef, role: AgentRole): Promise<ExitOutcome> {
    return agentMissing(this.mover, ref, role);
  }

  /** Changes a task's summary and/or branch (`orange task update --summary/--branch`). */
  edit(ref: TaskRef, changes: TaskEdit): Promise<{ task: Task; changed: string[] }> {
    return edit(this.mover, ref, changes);
  }

  /** A request from the CLI: a status change and/or an edit, checked and applied in one critical section. */
  request(ref: TaskRef, changes: TaskRequest): Promise<RequestResult> {
    return request(this.mover, ref, changes);
  }

  /** Replaces one `## name` section of a task's TASK.md body under the task lock (`orange task section set`). */
  writeSection(ref: TaskRef, name: string, content: string): Promise<Task> {
    return writeSection(this.mover, ref, name, content);
  }

  /** Restores every engine-owned field TASK.md shows forged to its value of record. */
  repair(ref: TaskRef): Promise<{ task: Task; from: string; to: string; repaired: boolean; fields: string[] }> {
    return repair(this.mover, ref);
  }
}
