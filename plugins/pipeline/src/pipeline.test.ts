import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Orange, OrangePaths, definePlugin, isOrangeError, type TaskMeta } from '@orange/core';
import { afterEach, describe, expect, it } from 'vitest';
import { checkpointPath } from './checkpoint.js';
import { pipeline } from './pipeline.js';
import { parsePipelineOptions } from './options.js';
import { afterFailure, nextTier, pipelineFields, resumeTarget, routeFor } from './policy.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** Orange with the pipeline plugin, no-op runtime/workspace actions and a headless test harness. */
async function orangeWithPipeline(options = {}) {
  const home = await mkdtemp(join(tmpdir(), 'orange-pipeline-'));
  dirs.push(home);
  const stand = definePlugin({
    name: 'stand-ins',
    apply(orange) {
      for (const a of ['acquire_workspace', 'release_workspace', 'spawn_agent', 'kill_session']) orange.hooks.actions.for(a).tapPromise('stand-ins', async () => undefined);
      orange.registerHarness({
        name: 'h',
        excludes: [],
        installed: async () => true,
        command: () => ({ argv: ['true'] }),
        headless: { tiers: ['small', 'big'], command: () => ({ argv: ['true'] }), result: () => ({ ok: true, output: '', costUsd: 0, data: {} }) },
      });
    },
  });
  const orange = await Orange.create({ defaults: false, harness: 'h', workflow: 'pipeline', plugins: [stand, pipeline(options)] }, { paths: new OrangePaths(home) });
  await orange.projects.add({ name: 'demo', path: home, default_branch: 'main' });
  const { task } = await orange.engine.createTask({ project: 'demo', summary: 'fix it', spawn: false });
  const ref = { project: 'demo', id: task.meta.id };
  const set = (patch: Partial<TaskMeta>) => orange.store.withTaskLock('demo', ref.id, () => orange.store.update('demo', ref.id, patch));
  const to = (status: string) => orange.engine.transition(ref, status, { cause: 'auto' });
  const refusal = async (status: string) => {
    const error = await to(status).then(() => null, (e: unknown) => e);
    return isOrangeError(error) ? `${error.code}: ${error.message}` : String(error);
  };
  return { orange, ref, set, to, refusal };
}

describe('pipeline gates on the engine', () => {
  it('routes a confident task and refuses an unsure one, by the configured threshold', async () => {
    const { set, to, refusal } = await orangeWithPipeline({ threshold: 0.7 });
    await to('classifying');
    expect(await refusal('routing')).toMatch(/E_GATE_FAILED.*not been classified/);
    await set({ confidence: 0.65 });
    expect(await refusal('routing')).toMatch(/confidence 0.65 is below the threshold 0.7/);
    await to('awaiting_clarification');
    expect(await refusal('executing')).toMatch(/E_ILLEGAL_TRANSITION/);
  });

  it('retries at the same tier while attempts are left, escalates after, fails at the breaker', async () => {
    const { set, to, refusal } = await orangeWithPipeline({ attempts: 2, breaker: 3 });
    await to('classifying');
    await set({ confidence: 0.9 });
    await to('routing');
    expect(await refusal('executing')).toMatch(/no pipeline of phases/);
    await set({ pipeline_phases: 'fix', phase: 'fix', tier: 'small', attempt: 1 });
    await to('executing');
    expect(await refusal('retrying')).toMatch(/E_GUARD_FAILED/);
    expect(await refusal('verifying')).toMatch(/phases not done: fix/);
    await set({ phase_result: 'failed', consecutive_failures: 1 });
    await to('retrying');
    expect(await refusal('escalating')).toMatch(/attempts are left/);
    expect(await refusal('failed')).toMatch(/fewer than 3 consecutive runs failed/);
    const retried = await to('executing');
    expect(retried.task.meta).toMatchObject({ attempt: 2, phase_result: '' });
    await set({ phase_result: 'failed', consecutive_failures: 2 });
    await to('retrying');
    await to('escalating');
    expect(await refusal('failed')).toMatch(/a higher model tier is left/);
    const escalated = await to('executing');
    expect(escalated.task.meta).toMatchObject({ tier: 'big', attempt: 1 });
    await set({ phase_result: 'failed', consecutive_failures: 3 });
    await to('retrying');
    expect(await refusal('executing')).toMatch(/circuit breaker/);
    await to('failed');
    expect(await refusal('executing')).toMatch(/E_ILLEGAL_TRANSITION/);
  });

  it('refuses to resume a task over its budget, and writes the checkpoint at every transition', async () => {
    const { orange, ref, set, to, refusal } = await orangeWithPipeline({ budgetUsd: 1 });
    await to('classifying');
    await set({ cost_total_usd: 1.5 });
    await to('stopped');
    expect(await refusal('classifying')).toMatch(/has reached its budget \$1.00; resume with a higher --budget/);
    const checkpoint = JSON.parse(await readFile(checkpointPath(orange.paths, ref), 'utf8')) as Record<string, unknown>;
    expect(checkpoint).toMatchObject({ state: 'stopped', cost_total_usd: 1.5, budget_usd: 1 });
    await set({ budget_usd: 3 });
    await to('classifying');
  });
});

describe('pipeline policy', () => {
  const settings = parsePipelineOptions({ attempts: 2, breaker: 3, intents: { bugfix: { phases: ['reproduce', 'fix'], tier: 'sonnet' }, docs: { phases: ['write'] } }, defaultIntent: 'docs' });
  const fields = (patch: Record<string, unknown>) => pipelineFields({ status: 'retrying', ...patch } as unknown as TaskMeta);

  it('chooses retry, escalation or failure after a failed run', () => {
    expect(afterFailure(settings, fields({ attempt: 1, consecutive_failures: 1 }))).toBe('executing');
    expect(afterFailure(settings, fields({ attempt: 2, consecutive_failures: 2 }))).toBe('escalating');
    expect(afterFailure(settings, fields({ attempt: 1, consecutive_failures: 3 }))).toBe('failed');
  });

  it('routes an intent to its phases and starting tier, an unknown one to the default intent', () => {
    expect(routeFor(settings, 'bugfix', ['haiku', 'sonnet', 'opus'])).toEqual({ intent: 'bugfix', phases: ['reproduce', 'fix'], tier: 'sonnet' });
    expect(routeFor(settings, 'poetry', ['haiku'])).toEqual({ intent: 'docs', phases: ['write'], tier: 'haiku' });
  });

  it('names the next tier, none at the top', () => {
    expect(nextTier(['haiku', 'sonnet', 'opus'], 'haiku')).toBe('sonnet');
    expect(nextTier(['haiku', 'sonnet', 'opus'], 'opus')).toBeNull();
  });

  it('resumes at classification, execution or verification from the checkpoint', () => {
    expect(resumeTarget(fields({}))).toBe('classifying');
    expect(resumeTarget(fields({ pipeline_phases: 'a,b', phases_done: 'a' }))).toBe('executing');
    expect(resumeTarget(fields({ pipeline_phases: 'a,b', phases_done: 'a,b' }))).toBe('verifying');
  });

  it('refuses bad options with one line naming the field', () => {
    expect(() => parsePipelineOptions({ threshold: 2 })).toThrow(/plugin pipeline: option "threshold"/);
    expect(() => parsePipelineOptions({ verify: ['npm test'] })).toThrow(/plugin pipeline: option "verify.0"/);
    expect(() => parsePipelineOptions({ defaultIntent: 'x' })).toThrow(/option "defaultIntent" must be one of the configured intents/);
    expect(() => parsePipelineOptions({ budget: 3 })).toThrow(/unknown option "budget"/);
  });
});
