import { isOrangeError, OrangeError, TransitionRefused } from '../errors/index.js';
import { statusNotice } from '../notifications/index.js';
import type {
  ActionContext,
  ActionFailure,
  AfterTransitionEvent,
  Cause,
  LockedTaskWrites,
  Orange,
  RefusalCheck,
  TaskRef,
  TransitionEvent,
  TransitionOptions,
  TransitionResult,
} from '../plugin/index.js';
import type { HistoryEvent } from '../store/index.js';
import { parseSections, setSection, TASK_META_ORDER, type Task, type TaskMeta } from '../task/index.js';
import { evaluateGuard, type Transition, type Workflow } from '../workflow/index.js';
import { notYourMove } from './authority.js';
import { agentPrompt } from './prompt.js';
import { checkSection } from './section-check.js';

/** Work a move leaves for after the task lock is released (e.g. starting the next queued task). */
export type Deferred = () => Promise<void>;

/** The move an action runs for: a transition's, a create rule's (`from` null), or a respawn's (`from` = `to`). */
export interface ActionMove {
  readonly from: string | null;
  readonly to: string;
  readonly cause: Cause;
  readonly reason?: string;
}

/** A move whose checks all passed: what `applyTransition` writes and runs. */
interface PreparedTransition {
  readonly event: TransitionEvent;
  readonly options: TransitionOptions;
}

/**
 * The move, read top to bottom: `transition` takes the task lock and reads the task as recorded;
 * `prepareTransition` runs every check (map, guard, gate, every plugin's veto) and writes nothing;
 * `applyTransition` writes the status with its ledger entry, runs the actions, resets the crash
 * count and tells the lifecycle hooks. Creation, exits and edits (the other files of this room)
 * are built from these steps, so every change of a task goes through them.
 */
export class Mover {
  constructor(readonly orange: Orange) {}

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

  /** The move with the task lock held: a no-op when `expectFrom` no longer holds, else checks, then writes and acts. */
  async transitionLocked(task: Task, to: string, options: TransitionOptions, deferred: Deferred[]): Promise<TransitionResult> {
    const from = task.meta.status;
    if (options.expectFrom !== undefined && from !== options.expectFrom) {
      return { task, from, to: from, changed: false, failedHooks: [], failures: [] };
    }
    const prepared = await this.prepareTransition(task, to, options);
    // Every check passed: only now may the move change the world outside Orange's files (a merge).
    if (options.effect) await options.effect(prepared.event.task);
    return this.applyTransition(prepared, deferred);
  }

  /** Map, guard, gate and vetoes: throws TransitionRefused, or returns what `applyTransition` needs. Writes nothing. */
  async prepareTransition(task: Task, to: string, options: TransitionOptions): Promise<PreparedTransition> {
    const from = task.meta.status;
    const cause = options.cause ?? 'request';
    const workflow = await this.orange.workflowFor(task.meta);
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
      if (forced !== undefined && options.force === true) {
        if (!forced.by.includes(options.actor ?? 'orange')) throw new TransitionRefused('E_FORBIDDEN', from, to, notYourMove(workflow, [forced], options.actor ?? 'orange', task.meta.id));
        return forced;
      }
      const allowed = this.targets(workflow, from);
      throw new TransitionRefused(
        'E_ILLEGAL_TRANSITION',
        from,
        to,
        `not a transition of workflow ${workflow.name}${allowed.length ? ` (from ${from}: ${allowed.join(', ')})` : ''}${forced ? '; a person can force it (a forced merge)' : ''}`,
      );
    }
    // Who may take it comes right after the map: an agent never learns more of a person's move than that it is one.
    const actor = options.actor ?? 'orange';
    const permitted = candidates.filter((t) => t.by.includes(actor));
    if (permitted.length === 0) throw new TransitionRefused('E_FORBIDDEN', from, to, notYourMove(workflow, candidates, actor, task.meta.id));
    if (crashOnes.length > 0) return permitted[0] as Transition;
    const fields = task.meta as Record<string, unknown>;
    const guarded = permitted.filter((t) => t.parsedGuard === null || evaluateGuard(t.parsedGuard, fields));
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
  async applyTransition(prepared: PreparedTransition, deferred: Deferred[]): Promise<TransitionResult> {
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
    const written = current;
    await this.safely('statusWritten', () => this.orange.hooks.statusWritten.promise({ ...event, task: written }));

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

  /** Runs actions in order; a failure is logged, recorded as `hook.failed`, and the rest still run. */
  async runActions(
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
      prompt: (role, respawn = false) => agentPrompt(orange, workflow, get(), role, respawn),
      defer(fn) {
        deferred.push(fn);
      },
    };
  }

  /** The writes of an action or an afterTransition tap, under the lock the engine holds: `set` follows each. */
  lockedWrites(get: () => Task, set: (t: Task) => void): Omit<LockedTaskWrites, 'task'> {
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

  async writeSectionLocked(ref: TaskRef, name: string, content: string): Promise<Task> {
    await this.readVerified(ref);
    const task = await this.orange.store.update(ref.project, ref.id, {}, (body) => setSection(body, name, content));
    await this.record(task, { type: 'section.written', section: name, bytes: Buffer.byteLength(content.trim()) });
    this.orange.log.info('section written', { task: ref.id, section: name });
    return task;
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

  /** Writes `patch` over the task as it is on disk now (the agent may have edited the body). Lock held. */
  async writeFresh(task: Task, patch: Partial<TaskMeta>): Promise<Task> {
    const fresh = await this.orange.store.read(task.meta.project, task.meta.id);
    const meta = fresh.meta as Record<string, unknown>;
    if (Object.entries(patch).every(([k, v]) => meta[k] === v)) return fresh;
    return this.orange.store.update(task.meta.project, task.meta.id, patch);
  }

  async record(task: Task, event: Omit<HistoryEvent, 'timestamp'>): Promise<void> {
    await this.orange.store.appendHistory(task.meta.project, task.meta.id, event);
  }

  async runDeferred(deferred: Deferred[]): Promise<void> {
    for (const fn of deferred) {
      await fn().catch((error: unknown) => this.orange.log.error('deferred action failed', { error: String(error) }));
    }
  }

  /** Lifecycle hooks observe; their failures are logged and never undo a transition. */
  async safely(hook: string, fn: () => Promise<unknown>): Promise<void> {
    try {
      await fn();
    } catch (error) {
      this.orange.log.error('lifecycle hook failed', { hook, error: error instanceof Error ? error.message : String(error) });
    }
  }
}

/** Which check raised each refusal code (E_TAMPERED is a refusal to read, not a transition check). */
const REFUSAL_CHECKS: Partial<Record<string, RefusalCheck>> = {
  E_ILLEGAL_TRANSITION: 'map',
  E_FORBIDDEN: 'authority',
  E_GUARD_FAILED: 'guard',
  E_GATE_FAILED: 'gate',
  E_VETOED: 'veto',
};

/** The `attention` note for actions that failed after a write: `hook failed: a` / `hooks failed: a, b`. */
export function failedHooksNote(failed: readonly string[]): string {
  return `hook${failed.length > 1 ? 's' : ''} failed: ${failed.join(', ')}`;
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
