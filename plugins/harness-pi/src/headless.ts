import { headlessData, type HeadlessRequest, type HeadlessResult, type HeadlessRun } from '@orange/core';
import { promptArgument } from './prompt-argument.js';

/** Model patterns from cheapest to strongest (pi matches them fuzzily): the pipeline's default ladder. */
export const PI_TIERS = ['haiku', 'sonnet', 'opus'] as const;

/**
 * The argv of a headless pi run: print mode with `--mode json`, one event per line. The tier is
 * its `--model`. `--print` comes last: it would take a following message as its own value.
 */
export function piHeadlessArgv(options: { bin: string; provider?: string | undefined; extraArgs: readonly string[] }, request: HeadlessRequest): string[] {
  const argv = [options.bin, '--mode', 'json'];
  if (options.provider) argv.push('--provider', options.provider);
  if (request.model) argv.push('--model', request.model);
  argv.push(...options.extraArgs, '--print', promptArgument(request.prompt));
  return argv;
}

interface AssistantMessage {
  readonly text: string;
  readonly stopReason: string;
  readonly errorMessage: string | null;
  readonly cost: number;
}

/**
 * Reads pi's JSON events: every assistant `message_end` adds its `usage.cost.total`; the last
 * one's text is the answer, and its `stopReason` (`error`, `aborted`) says whether it failed.
 */
export function piHeadlessResult(run: HeadlessRun): HeadlessResult {
  let last: AssistantMessage | null = null;
  let costUsd = 0;
  for (const line of run.stdout.split('\n')) {
    const event = headlessData(line);
    if (event.type !== 'message_end') continue;
    const message = assistantMessage(event.message);
    if (!message) continue;
    costUsd += message.cost;
    last = message;
  }
  const failed = last === null || last.stopReason === 'error' || last.stopReason === 'aborted';
  const ok = run.exitCode === 0 && !failed;
  const output = ok ? (last?.text ?? '') : (last?.errorMessage ?? (run.stderr.trim() || `pi exited with code ${run.exitCode}`));
  return { ok, output: output.slice(0, 4000), costUsd, data: ok ? headlessData(last?.text ?? '') : {} };
}

function assistantMessage(value: unknown): AssistantMessage | null {
  if (typeof value !== 'object' || value === null) return null;
  const message = value as { role?: unknown; content?: unknown; stopReason?: unknown; errorMessage?: unknown; usage?: { cost?: { total?: unknown } } };
  if (message.role !== 'assistant') return null;
  const parts = Array.isArray(message.content) ? (message.content as Array<{ type?: unknown; text?: unknown }>) : [];
  const text = parts
    .filter((p) => p.type === 'text' && typeof p.text === 'string')
    .map((p) => p.text as string)
    .join('');
  const total = message.usage?.cost?.total;
  return {
    text,
    stopReason: typeof message.stopReason === 'string' ? message.stopReason : '',
    errorMessage: typeof message.errorMessage === 'string' ? message.errorMessage : null,
    cost: typeof total === 'number' && Number.isFinite(total) ? total : 0,
  };
}
