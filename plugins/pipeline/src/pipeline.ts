import { definePlugin, OrangeError, type ActionContext, type Gate, type GateResult, type Harness, type Orange, type OrangePlugin, type Task } from '@orange/core';
import { writeCheckpoint } from './checkpoint.js';
import { setPipelineInstance, type PipelineInstance } from './instance.js';
import { respawnTask } from './operator.js';
import { parsePipelineOptions, type PipelineOptions } from './options.js';
import { afterFailure, nextTier, overBudget, pipelineFields, tiersFor } from './policy.js';
import { foldReceipts } from './run-receipts.js';
import { saveTaskMemory } from './memory-store.js';

export { pipelineOf, type PipelineInstance } from './instance.js';

/** The harness name under which the pipeline driver is started in the task's tmux session. */
export const DRIVER_HARNESS = 'pipeline-driver';

const ok: GateResult = { ok: true };
const no = (reason: string): GateResult => ({ ok: false, reason });

/**
 * The `pipeline` workflow's actions (`start_pipeline`, `stop_pipeline`, `escalate_tier`,
 * `next_attempt`, `save_memory`) and gates (`pipeline-*`), the checkpoint written at every transition, and the
 * driver harness. `pipeline({ threshold: 0.6, attempts: 2, breaker: 3, budgetUsd: 5, verify: [['npm', 'test']] })`.
 */
export function pipeline(options: PipelineOptions = {}): OrangePlugin {
  const settings = parsePipelineOptions(options);
  return definePlugin({
    name: 'pipeline',
    apply(orange) {
      const headlessHarness = async (task: Task) => {
        const harness = await orange.resolveHarness(task.meta, 'worker');
        if (!harness.headless) {
          throw new OrangeError('E_HARNESS', `harness ${harness.name} cannot run headless, so it cannot run pipeline tasks (use claude, codex, or a command harness with a headless argv)`);
        }
        return { harness, tiers: tiersFor(settings, harness.name, harness.headless.tiers) };
      };
      const instance: PipelineInstance = { settings, headlessHarness };
      setPipelineInstance(orange, instance);

      orange.registerHarness(driverHarness(orange));

      const gate = (name: string, check: Gate) => orange.registerGate(name, check);
      gate('pipeline-confident', ({ task }) => {
        const { confidence } = pipelineFields(task.meta);
        if (confidence === null) return no('the task has not been classified');
        return confidence >= settings.threshold ? ok : no(`confidence ${confidence} is below the threshold ${settings.threshold}`);
      });
      gate('pipeline-unsure', ({ task }) => {
        const { confidence } = pipelineFields(task.meta);
        if (confidence === null) return no('the task has not been classified');
        return confidence < settings.threshold ? ok : no(`confidence ${confidence} reaches the threshold ${settings.threshold}`);
      });
      gate('pipeline-routed', ({ task }) => (pipelineFields(task.meta).phases.length > 0 ? ok : no('no pipeline of phases was chosen')));
      gate('pipeline-phases-done', ({ task }) => {
        const f = pipelineFields(task.meta);
        const left = f.phases.filter((p) => !f.phasesDone.includes(p));
        return f.phases.length > 0 && left.length === 0 ? ok : no(`phases not done: ${left.join(', ') || '(no pipeline)'}`);
      });
      const failureGate = (want: ReturnType<typeof afterFailure>, reason: string): Gate => ({ task }) =>
        afterFailure(settings, pipelineFields(task.meta)) === want ? ok : no(reason);
      gate('pipeline-same-tier', failureGate('executing', 'no attempts are left at this tier (or the circuit breaker tripped)'));
      gate('pipeline-tier-used-up', failureGate('escalating', 'attempts are left at this tier (or the circuit breaker tripped)'));
      gate('pipeline-breaker-tripped', failureGate('failed', `fewer than ${settings.breaker} consecutive runs failed`));
      gate('pipeline-higher-tier', async ({ task }) => {
        const { tiers } = await headlessHarness(task);
        return nextTier(tiers, pipelineFields(task.meta).tier) !== null ? ok : no('the task is at the top model tier');
      });
      gate('pipeline-top-tier', async ({ task }) => {
        const { tiers } = await headlessHarness(task);
        return nextTier(tiers, pipelineFields(task.meta).tier) === null ? ok : no('a higher model tier is left');
      });
      gate('pipeline-resumable', ({ task }) => {
        const f = pipelineFields(task.meta);
        return overBudget(f) ? no(`its cost $${f.costTotalUsd.toFixed(2)} has reached its budget $${f.budgetUsd.toFixed(2)}; resume with a higher --budget`) : ok;
      });

      const action = (name: string, fn: (ctx: ActionContext) => Promise<void>) => orange.hooks.actions.for(name).tapPromise('pipeline', fn);
      action('start_pipeline', async (ctx) => {
        await keepStopReason(ctx);
        if (pipelineFields(ctx.task.meta).budgetUsd <= 0) await ctx.update({ budget_usd: settings.budgetUsd });
        const spawn = orange.hooks.actions.get('spawn_agent');
        if (!spawn || spawn.taps.length === 0) throw new OrangeError('E_NO_PROVIDER', 'no runtime plugin provides spawn_agent, so the pipeline driver cannot start');
        // The driver runs where an agent would (the task's tmux session, its exit reported), as the
        // driver harness; the task keeps its own harness for the phases.
        const task = ctx.task;
        await spawn.promise({ ...ctx, task: { ...task, meta: { ...task.meta, harness: DRIVER_HARNESS } } });
      });
      action('stop_pipeline', async (ctx) => {
        await keepStopReason(ctx);
        // The driver runs only in a state with an agent: leaving created, awaiting_clarification or stopped, none is left to end.
        if (ctx.from === null || !ctx.workflow.state(ctx.from)?.agent) return;
        const kill = orange.hooks.actions.get('kill_session');
        if (kill && kill.taps.length > 0) await kill.promise(ctx);
        // A run that ended while this move held the lock left its receipt as the driver went: it counts now.
        const spent = await foldReceipts(orange, ctx.task.meta);
        if (spent > pipelineFields(ctx.task.meta).costTotalUsd) await ctx.update({ cost_total_usd: spent });
      });
      // `verification` is kept: a failed verdict holds the breaker's count until the checks run again.
      action('next_attempt', async (ctx) => {
        await ctx.update({ attempt: pipelineFields(ctx.task.meta).attempt + 1, phase_result: '' });
      });
      action('escalate_tier', async (ctx) => {
        const { tiers } = await headlessHarness(ctx.task);
        const next = nextTier(tiers, pipelineFields(ctx.task.meta).tier);
        if (next !== null) await ctx.update({ tier: next, attempt: 1, phase_result: '' });
      });
      // Seed 002's "evaluate evolution, save memory" on verifying → completed: the entry is committed
      // on the task's branch before release_workspace frees the worktree (docs/workflows.md, "Memory").
      action('save_memory', async (ctx) => {
        const saved = await saveTaskMemory(orange, settings, ctx.task);
        if (saved) await ctx.record({ type: 'pipeline.memory', file: saved.file, commit: saved.commit });
      });

      // The checkpoint says the new status as soon as it is written (before the move's actions, which
      // may take seconds: starting the driver), and again after them, with what they changed.
      orange.hooks.statusWritten.tapPromise('pipeline', async (event) => {
        if (event.workflow.name === 'pipeline') await writeCheckpoint(orange.paths, event.task.meta);
      });
      orange.hooks.afterTransition.tapPromise('pipeline', async (event) => {
        if (event.workflow.name === 'pipeline') await writeCheckpoint(orange.paths, event.task.meta);
      });
      orange.hooks.respawn.tapPromise('pipeline', async ({ task, workflow }) => {
        if (workflow.name !== 'pipeline') return undefined;
        return respawnTask(orange, { project: task.meta.project, id: task.meta.id });
      });
      orange.hooks.taskCreated.tapPromise('pipeline', async (event) => {
        const workflow = await orange.workflowFor(event.task.meta);
        if (workflow.name !== 'pipeline') return;
        // The budget is the task's from creation (task show, list, the checkpoint), not from its start:
        // the config's, unless it was given its own (task create --budget).
        const { project, id } = event.task.meta;
        await orange.store.withTaskLock(project, id, async () => {
          const task = await orange.engine.readVerified({ project, id });
          const meta = pipelineFields(task.meta).budgetUsd > 0 ? task.meta : (await orange.store.update(project, id, { budget_usd: settings.budgetUsd })).meta;
          await writeCheckpoint(orange.paths, meta);
        });
      });
    },
  });
}

/** Why the task stopped is the stop's own reason (cancelled, budget exceeded, …), and only while it is stopped. */
async function keepStopReason(ctx: ActionContext): Promise<void> {
  if (ctx.to !== 'stopped' && ctx.from !== 'stopped') return;
  const stopReason = ctx.to === 'stopped' ? (ctx.reason ?? 'stopped') : '';
  if (pipelineFields(ctx.task.meta).stopReason !== stopReason) await ctx.update({ stop_reason: stopReason });
}

/** The "harness" that starts the pipeline driver (`orange pipeline run`) instead of an agent. */
function driverHarness(orange: Orange): Harness {
  return {
    name: DRIVER_HARNESS,
    internal: true,
    excludes: [],
    // Never picked as a task's harness by detection.
    installed: async () => false,
    command(request) {
      if (!orange.cliEntry) throw new OrangeError('E_RUNTIME', 'the pipeline driver needs the orange CLI entry (run Orange through its CLI)');
      return { argv: [process.execPath, orange.cliEntry, 'pipeline', 'run', '--project', request.task.project, '--task', request.task.id] };
    },
  };
}
