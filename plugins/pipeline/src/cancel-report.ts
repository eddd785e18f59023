import type { TaskMeta } from '@orange/core';
import { pipelineFields } from './policy.js';

/** What `orange task cancel` reports for a pipeline task (seed 002's cancel handling). */
export interface CancelReport {
  readonly id: string;
  readonly status: string;
  readonly completed: readonly string[];
  readonly in_progress: string | null;
  readonly cost_total_usd: number;
  readonly budget_usd: number;
}

/**
 * What was in progress when a task was stopped from `from`: the classifier, the wait for a
 * clarification, routing, the phase being run or retried, the verification; nothing before the
 * task started. Pure.
 */
export function inProgress(meta: TaskMeta, from: string): string | null {
  const f = pipelineFields(meta);
  switch (from) {
    case 'classifying':
      return 'classify';
    case 'awaiting_clarification':
      return 'clarification';
    case 'routing':
      return 'routing';
    case 'executing':
    case 'retrying':
    case 'escalating':
      return f.phase && !f.phasesDone.includes(f.phase) ? f.phase : (f.phases.find((p) => !f.phasesDone.includes(p)) ?? null);
    case 'verifying':
      return 'verification';
    default:
      return null;
  }
}

/** The report for a task just stopped from `from`: phases completed, what was in progress, the cost so far. Pure. */
export function cancelReport(meta: TaskMeta, from: string): CancelReport {
  const f = pipelineFields(meta);
  return { id: meta.id, status: meta.status, completed: f.phasesDone, in_progress: inProgress(meta, from), cost_total_usd: f.costTotalUsd, budget_usd: f.budgetUsd };
}

/** The report as lines for a terminal. */
export function cancelReportLines(report: CancelReport): string[] {
  return [
    `Stopped task ${report.id}; its checkpoint is kept (resume with: orange task resume ${report.id})`,
    `Completed: ${report.completed.length > 0 ? report.completed.join(', ') : 'nothing'}`,
    `In progress: ${report.in_progress ?? 'nothing'}`,
    `Cost so far: $${report.cost_total_usd.toFixed(4)} of a $${report.budget_usd.toFixed(2)} budget`,
  ];
}
