import { OrangeError, TransitionRefused } from '../errors/index.js';
import type { ExitOutcome, TaskRef, TransitionOptions } from '../plugin/index.js';
import type { AgentRole, Task } from '../task/index.js';
import { decideExit, type ExitDecision, type Workflow } from '../workflow/index.js';
import { exitHandledInStatus, failedStartInStatus, START_RETRIES } from './exit-ledger.js';
import { failedHooksNote, type Deferred, type Mover } from './move.js';

// What happens when an agent's process is gone: the exit report (or the monitor's poll) lands here,
// the workflow's exit rule (workflow/exit-rules.ts) decides, and the move carries it out.
/**
 * Handles the exit of an agent: `spawnId` (from the runtime's exit report) makes it idempotent —
 * a second report, or a poll that sees the same death, finds the spawn already cleared.
 */
export async function agentExited(mover: Mover, ref: TaskRef, role: AgentRole, spawnId: string | null, source: 'exit' | 'poll' | 'manual'): Promise<ExitOutcome> {
  const deferred: Deferred[] = [];
  const outcome = await mover.orange.store.withTaskLock(ref.project, ref.id, async (): Promise<ExitOutcome> => {
    let task = await mover.orange.store.read(ref.project, ref.id);
    const field = role === 'worker' ? 'worker_spawn' : 'reviewer_spawn';
    const live = task.meta[field];
    if (live === null || (spawnId !== null && live !== spawnId)) {
      return { task, decision: { kind: 'ignore', reason: 'this agent exit was already handled' } };
    }
    const refused = await tamperedReason(mover, ref);
    if (refused) return { task, decision: { kind: 'ignore', reason: refused } };
    task = await mover.writeFresh(task, { [field]: null });
    await mover.record(task, { type: 'agent.exited', role, spawn: live, source, status: task.meta.status });
    await mover.safely('agentExited', () => mover.orange.hooks.agentExited.promise({ orange: mover.orange, task, role, spawnId: live }));
    return applyExitRule(mover, task, role, source, deferred);
  });
  await mover.runDeferred(deferred);
  return outcome;
}

/**
 * An active task whose responsible agent is not running although no spawn is recorded (its exit
 * was handled while another role was responsible, or it was never started in this status): the
 * state's exit rule is applied once per stay in the status, as if the agent had just exited.
 */
export async function agentMissing(mover: Mover, ref: TaskRef, role: AgentRole): Promise<ExitOutcome> {
  const deferred: Deferred[] = [];
  const outcome = await mover.orange.store.withTaskLock(ref.project, ref.id, async (): Promise<ExitOutcome> => {
    const task = await mover.orange.store.read(ref.project, ref.id);
    const workflow = await mover.orange.workflowFor(task.meta);
    const status = task.meta.status;
    const ignore = (reason: string): ExitOutcome => ({ task, decision: { kind: 'ignore', reason } });
    if (!workflow.isActive(status) || workflow.state(status)?.agent !== role) return ignore(`the ${role} is not responsible for ${status}`);
    if (task.meta[role === 'worker' ? 'worker_spawn' : 'reviewer_spawn'] !== null) return ignore('a spawn is recorded; its exit is handled when reported');
    if (exitHandledInStatus(await mover.orange.store.history(ref.project, ref.id), role)) return ignore('this agent exit was already handled');
    const runtime = mover.orange.maybeSlot('runtime');
    if (!runtime || (await runtime.snapshot()).isAlive(task.meta, role)) return ignore(`the ${role} is running`);
    const refused = await tamperedReason(mover, ref);
    if (refused) return ignore(refused);
    const history = await mover.orange.store.history(ref.project, ref.id);
    const failedStart = failedStartInStatus(history, role);
    if (failedStart !== null && failedStart.restarts < START_RETRIES) return restartFailedStart(mover, task, workflow, role, failedStart, deferred);
    await mover.record(task, { type: 'agent.exited', role, spawn: null, source: 'poll', status, reason: 'no agent running and none recorded' });
    return applyExitRule(mover, task, role, 'poll', deferred);
  });
  await mover.runDeferred(deferred);
  return outcome;
}

/**
 * Starts again an agent whose start failed in Orange (a worktree or tmux step): it never ran, so
 * its absence is no crash of its own. A few tries per stay in a status; then the exit rule counts.
 */
async function restartFailedStart(
  mover: Mover,
  task: Task,
  workflow: Workflow,
  role: AgentRole,
  failed: { readonly error: string; readonly restarts: number },
  deferred: Deferred[],
): Promise<ExitOutcome> {
  const attempt = failed.restarts + 1;
  const reason = `its start failed (${failed.error}); starting it again (${attempt} of ${START_RETRIES})`;
  await mover.record(task, { type: 'agent.restarted', role, attempt, reason });
  mover.orange.log.warn('agent start failed; starting it again', { task: task.meta.id, role, attempt, error: failed.error });
  const actions = [...(task.meta.workspace ? [] : ['acquire_workspace']), role === 'worker' ? 'spawn_agent' : 'spawn_reviewer'];
  const status = task.meta.status;
  const { task: after, failed: hooks } = await mover.runActions(task, workflow, actions, { from: status, to: status, cause: 'respawn', reason }, deferred);
  const current = await mover.writeFresh(after, { attention: hooks.length ? failedHooksNote(hooks) : null });
  return { task: current, decision: { kind: 'restart', attempt, reason } };
}

/** Why exit rules must not act on a task whose TASK.md is forged, or null when it is not. */
async function tamperedReason(mover: Mover, ref: TaskRef): Promise<string | null> {
  try {
    await mover.readVerified(ref);
    return null;
  } catch (error) {
    if (!(error instanceof OrangeError && error.code === 'E_TAMPERED')) throw error;
    // Nothing is cleared: once TASK.md is repaired, the next poll applies the exit rule.
    mover.orange.log.warn('exit ignored: TASK.md was edited by hand', { task: ref.id, error: error.message });
    return 'TASK.md was edited by hand (tampered); repair it first';
  }
}

/** The exit rule of the task's status for an agent of `role` that is gone. Lock held. */
async function applyExitRule(mover: Mover, exited: Task, role: AgentRole, source: 'exit' | 'poll' | 'manual', deferred: Deferred[]): Promise<ExitOutcome> {
  let task = exited;
  const workflow = await mover.orange.workflowFor(task.meta);
  const decision = await decideExit(workflow, task, role, mover.orange.gates);
  mover.orange.log.info('agent exited', { task: task.meta.id, role, source, decision: decision.kind, reason: decision.reason });
  switch (decision.kind) {
    case 'ignore':
    case 'mark':
    case 'restart':
      return { task, decision };
    case 'advance': {
      const options: TransitionOptions = { cause: 'auto', reason: decision.reason, expectFrom: task.meta.status };
      return autoTransition(mover, task, decision, decision.to, options, deferred);
    }
    case 'crash':
    case 'escalate': {
      task = await mover.writeFresh(task, { crash_count: decision.crashCount });
      await mover.record(task, { type: 'agent.crashed', status: task.meta.status, crash_count: decision.crashCount, reason: decision.reason, role });
      await mover.safely('crash', () =>
        mover.orange.hooks.crash.promise({ orange: mover.orange, task, status: task.meta.status, crashCount: decision.crashCount, reason: decision.reason }),
      );
      if (decision.kind === 'escalate') {
        const options: TransitionOptions = { cause: 'crash', crash: true, reason: `crash limit reached: ${decision.reason}` };
        return autoTransition(mover, task, decision, decision.to, options, deferred);
      }
      if (decision.respawn) {
        const action = role === 'worker' ? 'spawn_agent' : 'spawn_reviewer';
        const { task: after, failed } = await mover.runActions(task, workflow, [action], { from: task.meta.status, to: task.meta.status, cause: 'respawn' }, deferred);
        task = failed.length ? await mover.writeFresh(after, { attention: failedHooksNote(failed) }) : after;
      }
      return { task, decision };
    }
  }
}

/**
 * An exit rule's transition. A refusal (a plugin's veto) must not leave a task with no agent
 * and no sign of it: the task is flagged for attention and the refusal recorded.
 */
async function autoTransition(mover: Mover, task: Task, decision: ExitDecision, to: string, options: TransitionOptions, deferred: Deferred[]): Promise<ExitOutcome> {
  try {
    const result = await mover.transitionLocked(task, to, options, deferred);
    return { task: result.task, decision };
  } catch (error) {
    if (!(error instanceof TransitionRefused)) throw error;
    const flagged = await mover.writeFresh(task, { attention: `exit rule refused: ${error.message}` });
    await mover.record(flagged, { type: 'auto.refused', from: task.meta.status, to, code: error.code, reason: error.message });
    mover.orange.log.warn('exit rule transition refused', { task: task.meta.id, from: task.meta.status, to, reason: error.message });
    return { task: flagged, decision };
  }
}
