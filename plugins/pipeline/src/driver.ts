import { mkdir, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { AGENT_SECRET_VARIABLE, headlessRunEnv, OrangeError, openRegularFile, parseSections, renderPrompt, setSection, type Orange, type Task, type TaskMeta, type TaskRef } from '@orange/core';
import { execa } from 'execa';
import { writeCheckpoint } from './checkpoint.js';
import { pipelineOf, type PipelineInstance } from './instance.js';
import { noticeNotification, type Notice } from './notice.js';
import { afterChecks, afterFailure, afterPhaseRun, nextTier, overBudget, pipelineFields, roundUsd, routeFor, type PipelineFields } from './policy.js';
import { lastAsked, questionsFrom, withQuestionsAsked } from './questions.js';
import { foldReceipts, writeReceipt } from './run-receipts.js';
import { memoryPrompt, rememberedTier } from './memory-rules.js';
import { taskMemory } from './memory-store.js';
import { holdingSignals } from './signals.js';

/** A headless run's result file larger than this is not read (the agent wrote it: it may be anything). */
const RESULT_FILE_MAX_BYTES = 8 * 1024 * 1024;

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
    const task = await withCostOfRecord(orange, ref);
    const next = await step(orange, pipeline, task);
    if (next === null) return orange.store.read(ref.project, ref.id);
  }
}

type Step = Promise<true | null>;

/**
 * The task with every run's cost of record: receipts a killed driver left folded into the ledger,
 * and `cost_total_usd` no lower than what the ledger says its runs cost (a total that could not be
 * recorded — TASK.md tampered with until `task repair`, a driver killed — still counts against the
 * budget).
 */
async function withCostOfRecord(orange: Orange, taskRef: TaskRef): Promise<Task> {
  return orange.store.withTaskLock(taskRef.project, taskRef.id, async () => {
    const task = await orange.engine.readVerified(taskRef);
    const spent = await foldReceipts(orange, task.meta);
    if (spent <= pipelineFields(task.meta).costTotalUsd) return task;
    orange.log.warn('pipeline cost taken from the run history', { task: task.meta.id, recorded: pipelineFields(task.meta).costTotalUsd, spent });
    const updated = await orange.store.update(taskRef.project, taskRef.id, { cost_total_usd: spent });
    await writeCheckpoint(orange.paths, updated.meta);
    return updated;
  });
}

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
      if (to !== 'failed') return go(orange, task, to);
      const message = `circuit breaker tripped: ${f.consecutiveFailures} consecutive failed runs; last failure: ${oneLine(f.lastFailure)}`;
      return goWithNotice(orange, task, 'failed', 'circuit breaker tripped', { kind: 'breaker', message });
    }
    case 'escalating': {
      const { tiers } = await pipeline.headlessHarness(task);
      if (nextTier(tiers, f.tier) !== null) return go(orange, task, 'executing');
      const message = `retries used up at the top tier ${f.tier || '(default)'}; last failure: ${oneLine(f.lastFailure)}`;
      return goWithNotice(orange, task, 'failed', 'retries used up at the top tier', { kind: 'exhausted', message });
    }
    case 'verifying':
      return verify(orange, pipeline, task, f);
    default:
      return null;
  }
}

/** The states the driver works in; after it moved a task anywhere else, it ends. */
const DRIVEN = new Set(['classifying', 'routing', 'executing', 'retrying', 'escalating', 'verifying']);

/**
 * Asks for a move; the driver goes on only after its own move into a state it works in. Moved
 * elsewhere (stopped, failed, …), or by someone else first (a cancel), it ends at once: a resume
 * may already have started the next driver, and two must never run the same task.
 */
async function go(orange: Orange, task: Task, to: string, reason?: string): Step {
  const result = await orange.engine.transition(ref(task), to, { cause: 'auto', expectFrom: task.meta.status, ...(reason ? { reason } : {}) });
  return result.changed && DRIVEN.has(to) ? true : null;
}

function ref(task: Task): TaskRef {
  return { project: task.meta.project, id: task.meta.id };
}

/**
 * A move someone should hear about: the notice is recorded, then the move made carrying its
 * `pipeline.<kind>` notification (the diagnostics as its reason) instead of the core's status one.
 * The engine makes that notification durable before it writes the status, so a driver killed
 * between the two cannot stop a task unheard. A move someone else made first (a cancel) raises
 * nothing. `pipelineNotice` then tells the bus's observers.
 */
async function goWithNotice(orange: Orange, task: Task, to: string, reason: string, notice: Notice): Step {
  await appendEvent(orange, task, { type: 'pipeline.notice', kind: notice.kind, message: notice.message });
  orange.log.warn('pipeline notice', { task: task.meta.id, kind: notice.kind, message: notice.message });
  const from = task.meta.status;
  const notification = noticeNotification(task.meta, notice);
  const result = await orange.engine.transition(ref(task), to, { cause: 'auto', expectFrom: from, reason, notification });
  if (!result.changed) return null;
  try {
    await orange.hooks.pipelineNotice.promise({ orange, task: result.task, kind: notice.kind, message: notice.message, from, to });
  } catch (error) {
    orange.log.error('lifecycle hook failed', { hook: 'pipelineNotice', error: error instanceof Error ? error.message : String(error) });
  }
  // Into stopped or failed: nothing is left for this driver to do.
  return null;
}

/**
 * Writes pipeline fields and the checkpoint, which mirrors them, under the task lock: a late
 * write can never replace the checkpoint of a newer state. The cost written is never below the
 * cost of record.
 */
async function record(orange: Orange, task: Task, patch: Partial<TaskMeta>, body?: (b: string) => string): Promise<Task> {
  return orange.store.withTaskLock(task.meta.project, task.meta.id, async () => {
    const current = await orange.engine.readVerified(ref(task));
    // Receipts are folded right after each run (withCostOfRecord); a total from older fields never lowers the one of record.
    const recorded = pipelineFields(current.meta).costTotalUsd;
    const costPatch = typeof patch.cost_total_usd === 'number' ? { cost_total_usd: roundUsd(Math.max(patch.cost_total_usd, recorded)) } : {};
    const updated = await orange.store.update(task.meta.project, task.meta.id, { ...patch, ...costPatch }, body);
    await writeCheckpoint(orange.paths, updated.meta);
    return updated;
  });
}

/** The move into `stopped` sets `stop_reason` from its reason (the `stop_pipeline` action). */
async function stopForBudget(orange: Orange, task: Task, f: PipelineFields): Step {
  const reason = `budget exceeded: cost $${f.costTotalUsd.toFixed(2)} of a $${f.budgetUsd.toFixed(2)} budget`;
  return goWithNotice(orange, task, 'stopped', reason, { kind: 'budget', message: reason });
}

async function classify(orange: Orange, pipeline: PipelineInstance, task: Task, f: PipelineFields): Step {
  if (f.confidence !== null) {
    // Classified before a restart: only the transition is left (its questions are in TASK.md already).
    if (f.confidence >= pipeline.settings.threshold) return go(orange, task, 'routing');
    return go(orange, task, 'awaiting_clarification', clarificationReason(task, f.confidence, pipeline.settings.threshold));
  }
  if (overBudget(f)) return stopForBudget(orange, task, f);
  const intents = Object.keys(pipeline.settings.intents);
  let result = await orange.hooks.classify.promise({ orange, task, intents });
  // A hook's classification says its own cost in its event; a headless run's is in its `pipeline.run`.
  const hookCost = result ? (result.costUsd ?? 0) : 0;
  if (!result) {
    const { tiers } = await pipeline.headlessHarness(task);
    const prompt = renderPrompt(await template(orange, task, 'classify'), {
      ...task.meta,
      context: context(task),
      intents: intents.join(', '),
      questions: parseSections(task.body).get('Questions')?.trim() || '(none)',
      memory: memoryPrompt({ entries: await taskMemory(orange, pipeline.settings, task), intent: null }),
    });
    const run = await headlessRun(orange, pipeline, task, { phase: 'classify', prompt, model: tiers[0] ?? '' });
    const confidence = typeof run.data.confidence === 'number' ? run.data.confidence : Number(run.data.confidence);
    result = {
      intent: typeof run.data.intent === 'string' ? run.data.intent : '',
      confidence: run.ok && Number.isFinite(confidence) ? Math.min(1, Math.max(0, confidence)) : 0,
      costUsd: run.costUsd,
      questions: questionsFrom(run.data.questions),
    };
  }
  // Before the fields: a cost in history is never lost, even when the fields cannot be written.
  await appendEvent(orange, task, { type: 'pipeline.classified', intent: result.intent, confidence: result.confidence, ...(hookCost > 0 ? { cost_usd: hookCost } : {}) });
  const confident = result.confidence >= pipeline.settings.threshold;
  const questions = questionsFrom(result.questions);
  const unsure = unsureOf(result.intent);
  // Not sure: what a person must answer goes into TASK.md with the classification, so a restart keeps it.
  const asked = confident ? undefined : (body: string) => setSection(body, 'Questions', withQuestionsAsked(parseSections(body).get('Questions'), questions, unsure));
  const updated = await record(
    orange,
    task,
    {
      intent: result.intent,
      confidence: result.confidence,
      cost_total_usd: roundUsd(f.costTotalUsd + (result.costUsd ?? 0)),
    },
    asked,
  );
  if (confident) return go(orange, updated, 'routing');
  return go(orange, updated, 'awaiting_clarification', clarificationReason(updated, result.confidence, pipeline.settings.threshold));
}

/** What the classifier was unsure of, asked when it gave no questions of its own. */
function unsureOf(intent: string): string {
  return `What should this task do, and what would tell whether it is ${intent ? `a ${intent}` : 'a bugfix, a feature or something else'}? (The classifier asked nothing specific.)`;
}

/** The move's reason, which the clarification notification carries: the questions to answer. */
function clarificationReason(task: Task, confidence: number, threshold: number): string {
  const asked = lastAsked(parseSections(task.body).get('Questions'));
  const sure = `confidence ${confidence.toFixed(2)} < ${threshold.toFixed(2)}`;
  return asked ? `${sure}; answer with orange task clarify ${task.meta.id} "…": ${asked}` : sure;
}

async function route(orange: Orange, pipeline: PipelineInstance, task: Task): Step {
  const f = pipelineFields(task.meta);
  if (f.phases.length === 0) {
    const { tiers } = await pipeline.headlessHarness(task);
    const chosen = routeFor(pipeline.settings, f.intent, tiers);
    // Evolution: an intent that kept needing a higher tier starts there (docs/workflows.md, "Memory").
    const remembered = rememberedTier((await taskMemory(orange, pipeline.settings, task)) ?? [], chosen.intent, tiers, chosen.tier);
    if (remembered) await appendEvent(orange, task, { type: 'pipeline.memory.routed', intent: remembered.intent, tier: remembered.tier, from: remembered.from, tasks: remembered.tasks });
    task = await record(orange, task, {
      intent: chosen.intent,
      pipeline_phases: chosen.phases.join(','),
      phase: chosen.phases[0] ?? '',
      phases_done: '',
      phase_result: '',
      tier: remembered?.tier ?? chosen.tier,
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
    memory: memoryPrompt({ entries: await taskMemory(orange, pipeline.settings, task), intent: f.intent, firstPhase: index === 0, askLessons: true }),
  });
  const run = await headlessRun(orange, pipeline, task, { phase, prompt, model: f.tier });
  await record(orange, task, afterPhaseRun(f, phase, run));
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
  let failure: string | null = null;
  for (const [n, check] of pipeline.settings.verify.entries()) {
    // A check runs what the agents wrote (`npm test`): where they run, when a runtime runs them elsewhere (a container).
    const command = await orange.hooks.agentCommand.promise({ argv: check, env: {}, cwd: workspace ?? process.cwd() }, { orange, task, run: { kind: 'headless', phase: 'verify' } });
    const [file, ...args] = command.argv as [string, ...string[]];
    const result = await execa(file, args, { cwd: command.cwd, env: { ...withoutSecret(process.env), ...command.env }, extendEnv: false, reject: false, all: true, stdin: 'ignore', timeout: pipeline.settings.runTimeoutMs });
    const exit = result.exitCode ?? result.signal ?? '?';
    // Kept whether it passed or not, like an agent run's output: what "passed" meant can be read later.
    const log = await writeRunFile(orange, task, `check-${n + 1}.log`, `$ ${check.join(' ')} (exit ${exit})\n${result.all ?? ''}\n`);
    await appendEvent(orange, task, { type: 'pipeline.check', argv: check, exit_code: result.exitCode ?? null, ok: result.exitCode === 0, log });
    if (result.exitCode !== 0) {
      failure = `$ ${check.join(' ')} (exit ${exit})\n${tail(result.all ?? '')}`;
      break;
    }
  }
  await record(orange, task, afterChecks(f, failure));
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
  const runs = await runsDir(orange, task);
  const stamp = `${runStamp()}-${input.phase}`;
  // In the task's agent folder: the one a runtime that runs the agent elsewhere (a container) gives it to write in.
  const agentDir = orange.paths.agentDir(task.meta.project, task.meta.id);
  await mkdir(agentDir, { recursive: true });
  const resultFile = join(agentDir, `${stamp}.result.json`);
  const workspace = task.meta.workspace ?? process.cwd();
  const model = input.model || null;
  if (pipelineFields(task.meta).budgetUsd > 0 && headless.canPrice?.(model) === false) {
    orange.log.warn('run counts $0 against the budget: the harness has no price for its model', { task: task.meta.id, harness: harness.name, model: model ?? '(default)', phase: input.phase });
  }
  const request = { task: task.meta, prompt: input.prompt, workspace, model, phase: input.phase, resultFile };
  const harnessCommand = headless.command(request);
  // A runtime plugin may wrap the run (a container), as it wraps an agent in a terminal. The run's
  // own variables ($ORANGE_PROMPT, $ORANGE_STATUS, …) win over the harness's env and, below, over
  // this driver's: it runs as the task's agent, with the prompt and status it was started with.
  const command = await orange.hooks.agentCommand.promise(
    { argv: harnessCommand.argv, env: { ...harnessCommand.env, ...headlessRunEnv(request) }, cwd: workspace },
    { orange, task, run: { kind: 'headless', phase: input.phase } },
  );
  if (command.argv.length === 0) throw new OrangeError('E_HARNESS', `the agentCommand hook left the ${input.phase} run's command empty`);
  const [file, ...args] = command.argv as [string, ...string[]];
  await appendEvent(orange, task, { type: 'pipeline.run.started', phase: input.phase, tier: input.model, harness: harness.name });
  // From the start of the run to its receipt, a hangup or stop (a cancel's kill) waits: the run is
  // stopped with it, and what it cost is written before this process goes.
  const result = await holdingSignals(async (stop) => {
    const run = execa(file, args, {
      cwd: command.cwd,
      // The agent runs with the task's identity but not the driver's secret: its own `orange` calls cannot act as Orange's driver.
      env: { ...withoutSecret(process.env), ...command.env },
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
      timeout: pipeline.settings.runTimeoutMs,
    });
    void stop.then((signal) => run.kill(signal));
    const child = await run;
    const written = await readResultFile(orange, task, resultFile);
    const reported = headless.result({ exitCode: child.exitCode ?? 1, stdout: String(child.stdout ?? ''), stderr: String(child.stderr ?? ''), resultFile: written, model });
    await writeFile(join(runs, `${stamp}.log`), `$ ${command.argv.slice(0, 1).join(' ')} … (exit ${child.exitCode ?? child.signal})\n--- stdout\n${child.stdout}\n--- stderr\n${child.stderr}\n`);
    // recursive: the agent may have left a directory under that name.
    await rm(resultFile, { force: true, recursive: true });
    await writeReceipt(orange, task.meta, { run: stamp, phase: input.phase, tier: input.model, ok: reported.ok, cost_usd: reported.costUsd, log: `runs/${stamp}.log` });
    return reported;
  });
  // Into the ledger and the cost of record now, under the lock (a cancel holding it folds the receipt itself).
  await withCostOfRecord(orange, ref(task));
  return result;
}

/**
 * The result file a headless run wrote, as text; null when it wrote none. The agent wrote it in a
 * folder it owns, so only a regular file of at most RESULT_FILE_MAX_BYTES is read: no FIFO, no
 * device, and no symlink at all.
 */
async function readResultFile(orange: Orange, task: Task, path: string): Promise<string | null> {
  try {
    const file = await openRegularFile(path, { maxBytes: RESULT_FILE_MAX_BYTES, within: null, what: `the ${basename(path)} result file of task ${task.meta.id}` });
    await file?.handle.close();
    return file?.text ?? null;
  } catch (error) {
    orange.log.warn('headless result file not read', { task: task.meta.id, error: error instanceof Error ? error.message : String(error) });
    return null;
  }
}

async function appendEvent(orange: Orange, task: Task, event: { type: string } & Record<string, unknown>): Promise<void> {
  await orange.store.appendHistory(task.meta.project, task.meta.id, event);
}

/** The task's `runs/` folder (agent runs and checks keep their output there), created on first use. */
async function runsDir(orange: Orange, task: Task): Promise<string> {
  const runs = join(orange.paths.taskDir(task.meta.project, task.meta.id), 'runs');
  await mkdir(runs, { recursive: true });
  return runs;
}

/** A file name prefix that sorts by time. */
function runStamp(): string {
  return new Date().toISOString().replace(/[:.]/g, '-');
}

/** Writes `text` to `runs/<stamp>-<name>` and returns that path relative to the task folder. */
async function writeRunFile(orange: Orange, task: Task, name: string, text: string): Promise<string> {
  const file = `${runStamp()}-${name}`;
  await writeFile(join(await runsDir(orange, task), file), text);
  return `runs/${file}`;
}

async function template(orange: Orange, task: Task, name: string): Promise<string> {
  const workflow = await orange.workflowFor(task.meta);
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

/** This process's environment without the spawn's secret (a headless run or a check is not the driver). */
function withoutSecret(env: NodeJS.ProcessEnv): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined && key !== AGENT_SECRET_VARIABLE) kept[key] = value;
  return kept;
}
