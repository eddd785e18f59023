import { headlessData, type HeadlessRequest, type HeadlessResult, type HeadlessRun } from '@orange/core';

/** Gemini models from cheapest to strongest: the pipeline's default ladder. */
export const GEMINI_TIERS = ['gemini-2.5-flash-lite', 'gemini-2.5-flash', 'gemini-2.5-pro'] as const;

/**
 * The argv of a headless Gemini CLI run: `--prompt` runs it non-interactively, and
 * `--output-format json` prints one object (`response`, `stats`, or `error`). The prompt is
 * joined to its flag with `=`, so a prompt starting with "-" is still the flag's value.
 */
export function geminiHeadlessArgv(options: { bin: string; extraArgs: readonly string[] }, request: HeadlessRequest): string[] {
  const argv = [options.bin, '--skip-trust', '--approval-mode', 'yolo', '--output-format', 'json'];
  if (request.model) argv.push('--model', request.model);
  argv.push(...options.extraArgs, `--prompt=${request.prompt}`);
  return argv;
}

/**
 * Reads the JSON the CLI printed: `response` on stdout when it worked, `error` (on stdout or
 * stderr) when not. The CLI reports tokens, not money, so the cost is 0.
 */
export function geminiHeadlessResult(run: HeadlessRun): HeadlessResult {
  const printed = jsonObjectIn(run.stdout) ?? {};
  const error = (printed.error ?? jsonObjectIn(run.stderr)?.error) as { message?: unknown } | undefined;
  const response = typeof printed.response === 'string' ? printed.response : null;
  const ok = run.exitCode === 0 && error === undefined && response !== null;
  const failure = typeof error?.message === 'string' ? error.message : run.stderr.trim() || `gemini exited with code ${run.exitCode}`;
  return { ok, output: (ok ? (response ?? '') : failure).slice(0, 4000), costUsd: 0, data: ok ? headlessData(response ?? '') : {} };
}

/** The JSON object in a text the CLI may have prefixed with notices ("YOLO mode is enabled."). */
function jsonObjectIn(text: string): Record<string, unknown> | null {
  const start = text.indexOf('{');
  if (start < 0) return null;
  try {
    const value: unknown = JSON.parse(text.slice(start));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
