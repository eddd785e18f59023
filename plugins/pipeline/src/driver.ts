import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseSections, renderPrompt, type Orange, type Task, type TaskMeta, type TaskRef } from '@orange/core';
import { execa } from 'execa';
import { writeCheckpoint } from './checkpoint.js';
import { pipelineOf, type PipelineInstance } from './pipeline.js';
import { afterFailure, nextTier, overBudget, pipelineFields, routeFor, type PipelineFields } from './policy.js';

/** Longest failure text kept in the frontmatter and fed into the next prompt. */
const FAILURE_CHARS = 3000;

/**
 * The pipeline driver (`orange pipeline run`): runs a task from its current state until it
 * reaches one where nothing runs (`awaiting_clarification`, `stopped`, `completed`, `failed`).
 * Every step first reads what was recorded, so a driver killed at any point and started again
 * (`orange task resume`) neither repeats a finished run nor counts its cost twice: a run's cost
 * and result are written together, after it ends; a run killed before that is run again.
 */
export async function runPipeline(orange: Orange, ref: TaskRef): Promise<Task> {
  const pipeline = pipelineOf(orange);
  for (;;) {
    const task = await orange.engine.readVerified(ref);
    const next = await step(orange, pipeline, task);
    if (next === null) return task;
  }
}

type Step = Promise<true | null>;

async function step(orange: Orange, pipeline: PipelineInstance, task: Task): Step {
  const f = pipelineFields(task.meta);
  switch (task.meta.status) {
    case 'classifying':
      return classify(orange, pipeline, task, f);
    case 'routing':
      return route(orange, pipeline, task);
    case 'executing':
      return execute(orange, pipeline, task, f);
    case 'retrying': {
      const to = afterFailure(pipeline.settings, f);
      if (to === 'failed') {
        await notice(orange, task, 'breaker', `circuit breaker tripped: ${f.consecutiveFailures} consecutive failed runs; last failure: ${oneLine(f.lastFailure)}`);
      }
      return go(orange, task, to, to === 'failed' ? 'circuit breaker tripped' : undefined);
    }
    case 'escalating': {
      const { tiers } = await pipeline.headlessHarness(task);
      if (nextTier(tiers, f.tier) === null) {
        await notice(orange, task, 'exhausted', `retries used up at the top tier ${f.tier || '(default)'}; last failure: ${oneLine(f.lastFailure)}`);
        return go(orange, task, 'failed', 'retries used up at the top tier');
      }
      return go(orange, task, 'executing');
    }
    case 'verifying':
      return verify(orange, pipeline, task, f);
    default:
      return null;
  }
}

async function go(orange: Orange, task: Task, to: string, reason?: string): Step {
  await orange.engine.transition(ref(task), to, { cause: 'auto', expectFrom: task.meta.status, ...(reason ? { reason } : {}) });
  return true;
}

function ref(task: Task): TaskRef {
  return { project: task.meta.project, id: task.meta.id };
}

/** Writes pipeline fields under the task lock (and the checkpoint, which mirrors them). */
async function record(orange: Orange, task: Task, patch: Partial<TaskMeta>, body?: (b: string) => string): Promise<Task> {
  const updated = await orange.store.withTaskLock(task.meta.project, task.meta.id, async () => {
    await orange.engine.readVerified(ref(task));
    return orange.store.update(task.meta.project, task.meta.id, patch, body);
  });
  await writeCheckpoint(orange.paths, updated.meta);
  return updated;
}

async function stopForBudget(orange: Orange, task: Task, f: PipelineFields): Step {
  const reason = `budget exceeded: cost $${f.costTotalUsd.toFixed(2)} of a $${f.budgetUsd.toFixed(2)} budget`;
  const updated = await record(orange, task, { stop_reason: reason });
  await notice(orange, updated, 'budget', reason);
  return go(orange, updated, 'stopped', reason);
}

async function classify(orange: Orange, pipeline: PipelineInstance, task: Task, f: PipelineFields): Step {
  if (f.confidence !== null) {
    // Classified before a restart: only the transition is left.
    return go(orange, task, f.confidence >= pipeline.settings.threshold ? 'routing' : 'awaiting_clarification');
  }
  if (overBudget(f)) return stopForBudget(orange, task, f);
  const intents = Object.keys(pipeline.settings.intents);
  let result = await orange.hooks.classify.promise({ orange, task, intents });
  if (!result) {
    const { tiers } = await pipeline.headlessHarness(task);
    const prompt = renderPrompt(await template(orange, task, 'classify'), { ...task.meta, context: context(task), intents: intents.join(', ') });
    const run = await headlessRun(orange, pipeline, task, { phase: 'classify', prompt, model: tiers[0] ?? '' });
    const confidence = typeof run.data.confidence === 'number' ? run.data.confidence : Number(run.data.confidence);
    result = {
      intent: typeof run.data.intent === 'string' ? run.data.intent : '',
      confidence: run.ok && Number.isFinite(confidence) ? Math.min(1, Math.max(0, confidence)) : 0,
      costUsd: run.costUsd,
    };
  }
  const updated = await record(orange, task, {
    intent: result.intent,
    confidence: result.confidence,
    cost_total_usd: round(f.costTotalUsd + (result.costUsd ?? 0)),
  });
  await appendEvent(orange, task, { type: 'pipeline.classified', intent: result.intent, confidence: result.confidence });
  return go(orange, updated, result.confidence >= pipeline.settings.threshold ? 'routing' : 'awaiting_clarification');
}

async function route(orange: Orange, pipeline: PipelineInstance, task: Task): Step {
  const f = pipelineFields(task.meta);
  if (f.phases.length === 0) {
    const { tiers } = await pipeline.headlessHarness(task);
    const chosen = routeFor(pipeline.settings, f.intent, tiers);
    task = await record(orange, task, {
      intent: chosen.intent,
      pipeline_phases: chosen.phases.join(','),
      phase: chosen.phases[0] ?? '',
      phases_done: '',
      phase_result: '',
      tier: chosen.tier,
      attempt: 1,
    });
  }
  return go(orange, task, 'executing');
}

async function execute(orange: Orange, pipeline: PipelineInstance, task: Task, f: PipelineFields): Step {
  if (f.phaseResult === 'failed') return go(orange, task, 'retrying', `phase ${f.phase} failed`);
  if (f.phases.length > 0 && f.phases.every((p) => f.phasesDone.includes(p))) return go(orange, task, 'verifying');
  if (overBudget(f)) return stopForBudget(orange, task, f);
  const phase = f.phase || f.phases.find((p) => !f.phasesDone.includes(p)) || '';
  const index = f.phases.indexOf(phase);
  const feedback = f.lastFailure ? `\nThe previous attempt failed. What it reported:\n${f.lastFailure}\n` : '';
  const prompt = renderPrompt(await template(orange, task, 'phase'), {
    ...task.meta,
    phase,
    phase_number: index + 1,
    phase_count: f.phases.length,
    phases: f.phases.join(' → '),
    phases_done: f.phasesDone.join(', ') || 'none',
    context: context(task),
    feedback,
  });
  const run = await headlessRun(orange, pipeline, task, { phase, prompt, model: f.tier });
  const cost = round(f.costTotalUsd + run.costUsd);
  if (!run.ok) {
    await record(orange, task, {
      phase,
      phase_result: 'failed',
      cost_total_usd: cost,
      consecutive_failures: f.consecutiveFailures + 1,
      last_failure: `phase ${phase} (tier ${f.tier || 'default'}, attempt ${f.attempt}): ${run.output}`.slice(0, FAILURE_CHARS),
    });
    return true;
  }
  const done = [...f.phasesDone, phase];
  const next = f.phases.find((p) => !done.includes(p)) ?? '';
  await record(orange, task, {
    phase: next || phase,
    phases_done: done.join(','),
    phase_result: next ? '' : 'passed',
    cost_total_usd: cost,
    consecutive_failures: 0,
    last_failure: '',
    attempt: next ? 1 : f.attempt,
  });
  return true;
}

async function verify(orange: Orange, pipeline: PipelineInstance, task: Task, f: PipelineFields): Step {
  if (f.verification === 'passed') return go(orange, task, 'completed');
  if (f.verification === 'failed') {
    // The last phase runs again with the checks' output as its feedback.
    const last = f.phases[f.phases.length - 1] ?? f.phase;
    const updated = await record(orange, task, { phases_done: f.phasesDone.filter((p) => p !== last).join(','), phase: last, phase_result: 'failed' });
    return go(orange, updated, 'retrying', 'verification failed');
  }
  const workspace = task.meta.workspace;
  const outputs: string[] = [];
  let passed = true;
  for (const check of pipeline.settings.verify) {
    const [file, ...args] = check as [string, ...string[]];
    const result = await execa(file, args, { cwd: workspace ?? undefined, reject: false, all: true, stdin: 'ignore', timeout: pipeline.settings.runTimeoutMs });
    await appendEvent(orange, task, { type: 'pipeline.check', argv: check, exit_code: result.exitCode ?? null, ok: result.exitCode === 0 });
    if (result.exitCode !== 0) {
      passed = false;
      outputs.push(`$ ${check.join(' ')} (exit ${result.exitCode ?? result.signal ?? '?'})\n${tail(result.all ?? '')}`);
      break;
    }
  }
  await record(orange, task, passed
    ? { verification: 'passed' }
    : { verification: 'failed', consecutive_failures: f.consecutiveFailures + 1, last_failure: `verification failed:\n${outputs.join('\n')}`.slice(0, FAILURE_CHARS) });
  return true;
}

interface RunInput {
  readonly phase: string;
  readonly prompt: string;
  readonly model: string;
}

/** One headless agent run in the task's worktree; its output is kept in the task folder. */
async function headlessRun(orange: Orange, pipeline: PipelineInstance, task: Task, input: RunInput) {
  const { harness } = await pipeline.headlessHarness(task);
  const headless = harness.headless!;
  const runs = join(orange.paths.taskDir(task.meta.project, task.meta.id), 'runs');
  await mkdir(runs, { recursive: true });
  const stamp = `${new Date().toISOString().replace(/[:.]/g, '-')}-${input.phase}`;
  const resultFile = join(runs, `${stamp}.result.json`);
  const workspace = task.meta.workspace ?? process.cwd();
  const model = input.model || null;
  const command = headless.command({ task: task.meta, prompt: input.prompt, workspace, model, phase: input.phase, resultFile });
  const [file, ...args] = command.argv as [string, ...string[]];
  await appendEvent(orange, task, { type: 'pipeline.run.started', phase: input.phase, tier: input.model, harness: harness.name });
  const child = await execa(file, args, {
    cwd: workspace,
    env: { ...command.env, ORANGE_RESULT_FILE: resultFile, ORANGE_PHASE: input.phase, ORANGE_MODEL: input.model },
    reject: false,
    stdin: 'ignore',
    timeout: pipeline.settings.runTimeoutMs,
  });
  const written = await readFile(resultFile, 'utf8').catch(() => null);
  const result = headless.result({ exitCode: child.exitCode ?? 1, stdout: String(child.stdout ?? ''), stderr: String(child.stderr ?? ''), resultFile: written, model });
  await writeFile(join(runs, `${stamp}.log`), `$ ${command.argv.slice(0, 1).join(' ')} … (exit ${child.exitCode ?? child.signal})\n--- stdout\n${child.stdout}\n--- stderr\n${child.stderr}\n`);
  await rm(resultFile, { force: true });
  await appendEvent(orange, task, { type: 'pipeline.run', phase: input.phase, tier: input.model, ok: result.ok, cost_usd: result.costUsd, log: `runs/${stamp}.log` });
  return result;
}

async function appendEvent(orange: Orange, task: Task, event: { type: string } & Record<string, unknown>): Promise<void> {
  await orange.store.appendHistory(task.meta.project, task.meta.id, event);
}

async function notice(orange: Orange, task: Task, kind: 'breaker' | 'exhausted' | 'budget', message: string): Promise<void> {
  await appendEvent(orange, task, { type: 'pipeline.notice', kind, message });
  orange.log.warn('pipeline notice', { task: task.meta.id, kind, message });
  try {
    await orange.hooks.pipelineNotice.promise({ orange, task, kind, message });
  } catch (error) {
    orange.log.error('lifecycle hook failed', { hook: 'pipelineNotice', error: error instanceof Error ? error.message : String(error) });
  }
}

async function template(orange: Orange, task: Task, name: string): Promise<string> {
  const workflow = await orange.workflowForProject(task.meta.project);
  return workflow.definition.prompts[name] ?? '';
}

function context(task: Task): string {
  return parseSections(task.body).get('Context') ?? '(none)';
}

function tail(text: string): string {
  return text.length > 2000 ? `…${text.slice(-2000)}` : text;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').slice(0, 200);
}

function round(usd: number): number {
  return Math.round(usd * 1e6) / 1e6;
}
