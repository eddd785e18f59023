import { inlineText, type ActionFailure, type TransitionResult } from '@orange/core';
import { EXIT_REFUSED, writeError } from './error-output.js';
import { setExitCode } from '../gateway/served-call.js';

/** What a status change command prints and returns as JSON. */
export function transitionJson(result: TransitionResult): object {
  return { task: result.task.meta, from: result.from, to: result.to, changed: result.changed, failedHooks: result.failedHooks, failures: result.failures };
}

/** One safe line for people (a status is read from TASK.md), plus a warning when actions failed after the status was written. */
export function transitionLines(result: TransitionResult): string[] {
  const { id } = result.task.meta;
  const lines = [result.changed ? `task ${id}: ${result.from} → ${result.to}` : `task ${id}: already ${result.task.meta.status}`];
  if (result.failedHooks.length > 0) {
    lines.push(`warning: the status changed but ${result.failedHooks.join(', ')} failed; the task is flagged for attention (see orange log)`);
  }
  return lines.map(inlineText);
}

/**
 * The error of a command whose own purpose was to start an agent (`task create`, `task spawn`)
 * when an action of its transition failed: the status change stands, but the command failed, so
 * it says why in the action's own words and exits 1. Null when nothing failed.
 */
export function actionFailure(failures: readonly ActionFailure[], what: string): { error: string; code: string } | null {
  if (failures.length === 0) return null;
  const reasons = failures.map((f) => `${f.action} failed: ${f.message}`).join('; ');
  return {
    error: `${what}, but ${reasons} (the task is flagged for attention)`,
    code: failures.find((f) => f.code !== undefined)?.code ?? 'E_RUNTIME',
  };
}

/** Prints `failure` as the command's error (stderr, or already inside the JSON object) and sets exit 1. */
export function reportActionFailure(failure: { error: string; code: string } | null, json: boolean): void {
  if (failure === null) return;
  if (!json) writeError(failure.error, failure.code, false);
  setExitCode(EXIT_REFUSED);
}
