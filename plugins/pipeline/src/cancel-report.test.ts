import type { TaskMeta } from '@orange/core';
import { describe, expect, it } from 'vitest';
import { cancelReport, cancelReportLines } from './cancel-report.js';

const meta = (patch: Record<string, unknown>) =>
  ({ id: 'T1', status: 'stopped', intent: '', pipeline_phases: '', phase: '', phases_done: '', cost_total_usd: 0.05, budget_usd: 5, ...patch }) as unknown as TaskMeta;

// What each state was doing when the cancel stopped it, and the fields the driver had written by then.
const CASES: ReadonlyArray<readonly [string, Record<string, unknown>, string | null, string[]]> = [
  ['created', {}, null, []],
  ['classifying', {}, 'classify', []],
  ['awaiting_clarification', { intent: 'bugfix' }, 'clarification', []],
  ['routing', { intent: 'bugfix' }, 'routing', []],
  ['executing', { pipeline_phases: 'reproduce,fix', phase: 'fix', phases_done: 'reproduce' }, 'fix', ['reproduce']],
  // The last phase just passed; the move to verifying had not been asked for yet.
  ['executing', { pipeline_phases: 'reproduce,fix', phase: 'fix', phases_done: 'reproduce,fix' }, null, ['reproduce', 'fix']],
  ['retrying', { pipeline_phases: 'reproduce,fix', phase: 'reproduce', phase_result: 'failed' }, 'reproduce', []],
  ['escalating', { pipeline_phases: 'reproduce,fix', phase: 'fix', phases_done: 'reproduce', phase_result: 'failed' }, 'fix', ['reproduce']],
  ['verifying', { pipeline_phases: 'reproduce,fix', phase: 'fix', phases_done: 'reproduce,fix' }, 'verification', ['reproduce', 'fix']],
];

describe('the cancel report', () => {
  it.each(CASES.map((c) => [c[0], c[2] ?? 'nothing', c] as const))('cancelled in %s says in progress: %s', (_from, _shown, [from, fields, inProgress, completed]) => {
    expect(cancelReport(meta(fields), from)).toEqual({ id: 'T1', status: 'stopped', completed, in_progress: inProgress, cost_total_usd: 0.05, budget_usd: 5 });
  });

  it('reads as lines for a terminal', () => {
    const report = cancelReport(meta({ pipeline_phases: 'reproduce,fix', phase: 'fix', phases_done: 'reproduce,fix', cost_total_usd: 0.0712 }), 'verifying');
    expect(cancelReportLines(report)).toEqual([
      'Stopped task T1; its checkpoint is kept (resume with: orange task resume T1)',
      'Completed: reproduce, fix',
      'In progress: verification',
      'Cost so far: $0.0712 of a $5.00 budget',
    ]);
  });
});
