import { headlessData, type HeadlessRequest, type HeadlessResult, type HeadlessRun } from '@orange/core';

/** Models from cheapest to strongest, in opencode's `provider/model` form: the pipeline's default ladder. */
export const OPENCODE_TIERS = ['anthropic/claude-haiku-4-5', 'anthropic/claude-sonnet-4-5', 'anthropic/claude-opus-4-1'] as const;

/** The argv of a headless opencode run: `opencode run --format json` prints one event per line. */
export function opencodeHeadlessArgv(options: { bin: string; agent?: string | undefined; extraArgs: readonly string[] }, request: HeadlessRequest): string[] {
  const argv = [options.bin, 'run', '--format', 'json', '--auto'];
  if (request.model) argv.push('--model', request.model);
  if (options.agent) argv.push('--agent', options.agent);
  argv.push(...options.extraArgs, '--', request.prompt);
  return argv;
}

/**
 * Reads `opencode run --format json` events: `text` parts make the answer (the last step's),
 * each `step_finish` adds its `cost`, an `error` event means failure.
 */
export function opencodeHeadlessResult(run: HeadlessRun): HeadlessResult {
  let text = '';
  let stepText = '';
  let costUsd = 0;
  let failure: string | null = null;
  for (const line of run.stdout.split('\n')) {
    const event = headlessData(line);
    const part = (event.part ?? {}) as { text?: unknown; cost?: unknown };
    if (event.type === 'step_start') stepText = '';
    if (event.type === 'text' && typeof part.text === 'string') stepText += part.text;
    if (event.type === 'step_finish') {
      if (typeof part.cost === 'number' && Number.isFinite(part.cost)) costUsd += part.cost;
      if (stepText) text = stepText;
    }
    if (event.type === 'error') failure = errorMessage(event.error);
  }
  if (stepText) text = stepText;
  const ok = run.exitCode === 0 && failure === null;
  const output = ok ? text : (failure ?? (run.stderr.trim() || `opencode exited with code ${run.exitCode}`));
  return { ok, output: output.slice(0, 4000), costUsd, data: ok ? headlessData(text) : {} };
}

function errorMessage(error: unknown): string {
  const e = (error ?? {}) as { name?: unknown; message?: unknown; data?: { message?: unknown } };
  const message = typeof e.data?.message === 'string' ? e.data.message : typeof e.message === 'string' ? e.message : 'opencode reported an error';
  return typeof e.name === 'string' ? `${e.name}: ${message}` : message;
}
