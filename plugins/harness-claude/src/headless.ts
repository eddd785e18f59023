import { headlessData, type HeadlessRequest, type HeadlessResult, type HeadlessRun } from '@orange/core';

/** Claude Code's model aliases from cheapest to strongest: the pipeline's escalation ladder. */
export const CLAUDE_TIERS = ['haiku', 'sonnet', 'opus'] as const;

/**
 * The argv of a headless Claude Code run: print mode with JSON output (`--output-format json`
 * prints one object with `result`, `is_error` and `total_cost_usd`). The tier is its `--model`.
 */
export function claudeHeadlessArgv(bin: string, extraArgs: readonly string[], request: HeadlessRequest): string[] {
  const argv = [bin, '-p', '--output-format', 'json', '--dangerously-skip-permissions'];
  if (request.model) argv.push('--model', request.model);
  argv.push(...extraArgs, '--', request.prompt);
  return argv;
}

/** Reads a print-mode JSON result; a run that printed no such object failed, with its stderr as the reason. */
export function claudeHeadlessResult(run: HeadlessRun): HeadlessResult {
  const printed = headlessData(run.stdout);
  const text = typeof printed.result === 'string' ? printed.result : '';
  const cost = typeof printed.total_cost_usd === 'number' && Number.isFinite(printed.total_cost_usd) ? printed.total_cost_usd : 0;
  if (printed.type !== 'result') {
    return { ok: false, output: (run.stderr.trim() || run.stdout.trim() || `claude exited with code ${run.exitCode}`).slice(0, 4000), costUsd: 0, data: {} };
  }
  return { ok: run.exitCode === 0 && printed.is_error !== true, output: text, costUsd: cost, data: headlessData(text) };
}
