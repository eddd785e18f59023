import { headlessData, type HeadlessRequest, type HeadlessResult, type HeadlessRun } from '@orange/core';

/** Codex models from cheapest to strongest, the default escalation ladder (override with `tiers`). */
export const CODEX_TIERS = ['gpt-5-codex-mini', 'gpt-5-codex', 'gpt-5'] as const;

/** USD per million tokens for one model; Codex reports tokens, not money. */
export interface CodexPrice {
  readonly input: number;
  readonly cachedInput?: number;
  readonly output: number;
}

/** The argv of a headless Codex run: `codex exec --json` prints one JSON event per line. */
export function codexHeadlessArgv(bin: string, extraArgs: readonly string[], request: HeadlessRequest): string[] {
  const argv = [bin, 'exec', '--json', '--dangerously-bypass-approvals-and-sandbox'];
  if (request.model) argv.push('--model', request.model);
  argv.push(...extraArgs, '--', request.prompt);
  return argv;
}

interface Usage {
  input: number;
  cached: number;
  output: number;
}

/**
 * Reads `codex exec --json` events: the last `agent_message` is the answer, `turn.completed`
 * carries token usage (priced with `prices[model]`), `turn.failed` / `error` mean failure.
 */
export function codexHeadlessResult(run: HeadlessRun, prices: Readonly<Record<string, CodexPrice>>): HeadlessResult {
  let message = '';
  let failure: string | null = null;
  let completed = false;
  const usage: Usage = { input: 0, cached: 0, output: 0 };
  for (const line of run.stdout.split('\n')) {
    const event = headlessData(line);
    const item = event.item as { type?: unknown; text?: unknown } | undefined;
    if (event.type === 'item.completed' && item?.type === 'agent_message' && typeof item.text === 'string') message = item.text;
    if (event.type === 'turn.completed') {
      completed = true;
      const u = (event.usage ?? {}) as Record<string, unknown>;
      usage.input += numberOf(u.input_tokens);
      usage.cached += numberOf(u.cached_input_tokens);
      usage.output += numberOf(u.output_tokens);
    }
    if (event.type === 'turn.failed' || event.type === 'error') {
      const error = event.error as { message?: unknown } | undefined;
      failure = typeof error?.message === 'string' ? error.message : typeof event.message === 'string' ? event.message : 'codex reported an error';
    }
  }
  const price = run.model ? prices[run.model] : undefined;
  const costUsd = price
    ? ((usage.input - usage.cached) * price.input + usage.cached * (price.cachedInput ?? price.input) + usage.output * price.output) / 1_000_000
    : 0;
  const ok = run.exitCode === 0 && completed && failure === null;
  const output = ok ? message : (failure ?? (run.stderr.trim() || `codex exited with code ${run.exitCode}`));
  return { ok, output: output.slice(0, 4000), costUsd, data: headlessData(message) };
}

function numberOf(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}
