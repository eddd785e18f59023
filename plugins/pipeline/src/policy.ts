import type { TaskMeta } from '@orange/core';
import type { PipelineSettings } from './options.js';

/** Longest failure text kept in the frontmatter and fed into the next prompt. */
export const FAILURE_CHARS = 3000;

/** The pipeline's own fields as the driver reads them from a task. */
export interface PipelineFields {
  readonly intent: string;
  readonly confidence: number | null;
  readonly phases: readonly string[];
  readonly phase: string;
  readonly phasesDone: readonly string[];
  readonly phaseResult: string;
  readonly attempt: number;
  readonly tier: string;
  readonly consecutiveFailures: number;
  readonly costTotalUsd: number;
  readonly budgetUsd: number;
  readonly verification: string;
  readonly lastFailure: string;
  readonly stopReason: string;
}

const list = (value: unknown): string[] => (typeof value === 'string' && value !== '' ? value.split(',') : []);
const num = (value: unknown, fallback: number): number => (typeof value === 'number' && Number.isFinite(value) ? value : fallback);
const str = (value: unknown): string => (typeof value === 'string' ? value : '');

/** Reads the pipeline fields from frontmatter (missing ones take their defaults). Pure. */
export function pipelineFields(meta: TaskMeta): PipelineFields {
  return {
    intent: str(meta.intent),
    confidence: typeof meta.confidence === 'number' ? meta.confidence : null,
    phases: list(meta.pipeline_phases),
    phase: str(meta.phase),
    phasesDone: list(meta.phases_done),
    phaseResult: str(meta.phase_result),
    attempt: num(meta.attempt, 0),
    tier: str(meta.tier),
    consecutiveFailures: num(meta.consecutive_failures, 0),
    costTotalUsd: num(meta.cost_total_usd, 0),
    budgetUsd: num(meta.budget_usd, 0),
    verification: str(meta.verification),
    lastFailure: str(meta.last_failure),
    stopReason: str(meta.stop_reason),
  };
}

/** The tier list for a harness: the config's, else the harness's own, else one unnamed tier (its default model). */
export function tiersFor(settings: PipelineSettings, harness: string, own: readonly string[]): readonly string[] {
  const configured = settings.tiers[harness];
  if (configured && configured.length > 0) return configured;
  return own.length > 0 ? own : [''];
}

/** The route for an intent: its phases and the starting tier. Pure. */
export function routeFor(settings: PipelineSettings, intent: string, tiers: readonly string[]): { intent: string; phases: string[]; tier: string } {
  const name = intent in settings.intents ? intent : (settings.defaultIntent ?? Object.keys(settings.intents)[0] ?? intent);
  const route = settings.intents[name];
  const tier = route?.tier !== undefined && tiers.includes(route.tier) ? route.tier : (tiers[0] ?? '');
  return { intent: name, phases: [...(route?.phases ?? [])], tier };
}

/** What `retrying` leads to after a failed run: seed 002's order, breaker first. Pure. */
export function afterFailure(settings: PipelineSettings, fields: PipelineFields): 'failed' | 'executing' | 'escalating' {
  if (fields.consecutiveFailures >= settings.breaker) return 'failed';
  if (fields.attempt < settings.attempts) return 'executing';
  return 'escalating';
}

/** The tier after `tier`, or null at the top. Pure. */
export function nextTier(tiers: readonly string[], tier: string): string | null {
  const index = tiers.indexOf(tier);
  return index >= 0 && index + 1 < tiers.length ? (tiers[index + 1] as string) : null;
}

/** Whether the next run may start: it may not once the cost reached the budget. Pure. */
export function overBudget(fields: PipelineFields): boolean {
  return fields.budgetUsd > 0 && fields.costTotalUsd >= fields.budgetUsd;
}

/**
 * What the task's runs cost, from its history: every `pipeline.run` (and a classification a hook
 * made, which says its cost) appends its cost before the driver records the total, so a total
 * that could not be written (the task was tampered with, the driver killed) is not lost. Pure.
 */
export function spentUsd(history: readonly { readonly type: string; readonly [field: string]: unknown }[]): number {
  let spent = 0;
  for (const event of history) {
    if (event.type !== 'pipeline.run' && event.type !== 'pipeline.classified') continue;
    const cost = event.cost_usd;
    if (typeof cost === 'number' && Number.isFinite(cost) && cost > 0) spent += cost;
  }
  return roundUsd(spent);
}

/** Where `orange task resume` continues a stopped task: from the checkpoint's progress. Pure. */
export function resumeTarget(fields: PipelineFields): 'classifying' | 'executing' | 'verifying' {
  if (fields.phases.length === 0) return 'classifying';
  if (fields.phasesDone.length >= fields.phases.length) return 'verifying';
  return 'executing';
}

/** What a finished headless run of a phase reported, as far as the pipeline's fields care. */
export interface PhaseRun {
  readonly ok: boolean;
  readonly output: string;
  readonly costUsd: number;
}

/**
 * The fields a finished phase run writes: its result and cost, the next phase, and the circuit
 * breaker's count. A failure adds 1 to the count; a success resets it, except while the checks'
 * last verdict is a failure: a phase re-run to fix failed checks has not shown that it fixed
 * anything until they pass (else "the phase passes, the checks fail" would never trip the breaker). Pure.
 */
export function afterPhaseRun(fields: PipelineFields, phase: string, run: PhaseRun): Partial<TaskMeta> {
  const cost = roundUsd(fields.costTotalUsd + run.costUsd);
  if (!run.ok) {
    return {
      phase,
      phase_result: 'failed',
      cost_total_usd: cost,
      consecutive_failures: fields.consecutiveFailures + 1,
      last_failure: `phase ${phase} (tier ${fields.tier || 'default'}, attempt ${fields.attempt}): ${run.output}`.slice(0, FAILURE_CHARS),
    };
  }
  const done = [...fields.phasesDone, phase];
  const next = fields.phases.find((p) => !done.includes(p)) ?? '';
  const fixingChecks = fields.verification === 'failed';
  return {
    phase: next || phase,
    phases_done: done.join(','),
    phase_result: next ? '' : 'passed',
    cost_total_usd: cost,
    consecutive_failures: fixingChecks ? fields.consecutiveFailures : 0,
    last_failure: '',
    attempt: next ? 1 : fields.attempt,
    // After the last phase the checks run afresh; their verdict stays until then.
    ...(next ? {} : { verification: '' }),
  };
}

/** The fields the checks write: passed resets the breaker's count, failed adds 1 and keeps the output for the retry. Pure. */
export function afterChecks(fields: PipelineFields, failure: string | null): Partial<TaskMeta> {
  if (failure === null) return { verification: 'passed', consecutive_failures: 0 };
  return { verification: 'failed', consecutive_failures: fields.consecutiveFailures + 1, last_failure: `verification failed:\n${failure}`.slice(0, FAILURE_CHARS) };
}

/** USD rounded to a millionth, so sums of run costs do not drift. Pure. */
export function roundUsd(usd: number): number {
  return Math.round(usd * 1e6) / 1e6;
}

/**
 * How many of `count` tiers a task that keeps failing from the first one reaches before the
 * breaker ends it: tier i is reached only while i × attempts < breaker (the breaker is checked
 * before escalating, departure 4 of docs/workflows.md). Pure.
 */
export function tiersReached(settings: Pick<PipelineSettings, 'attempts' | 'breaker'>, count: number): number {
  return Math.min(count, Math.ceil(settings.breaker / settings.attempts));
}

/** The smallest breaker that lets a task that keeps failing reach tier `index` (0: the first). Pure. */
export function breakerToReach(settings: Pick<PipelineSettings, 'attempts'>, index: number): number {
  return index * settings.attempts + 1;
}
