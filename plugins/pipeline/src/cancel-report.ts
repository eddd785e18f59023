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

/** The report for a task just stopped: phases completed, the phase in progress, the cost so far. Pure. */
export function cancelReport(meta: TaskMeta): CancelReport {
  const f = pipelineFields(meta);
  const inProgress = f.phase && !f.phasesDone.includes(f.phase) ? f.phase : f.phases.length === 0 ? (f.intent ? 'routing' : 'classify') : null;
  return { id: meta.id, status: meta.status, completed: f.phasesDone, in_progress: inProgress, cost_total_usd: f.costTotalUsd, budget_usd: f.budgetUsd };
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
