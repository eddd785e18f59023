import { join } from 'node:path';
import { writeFileAtomic, type OrangePaths, type TaskMeta } from '@orange/core';
import { pipelineFields } from './policy.js';

/** `checkpoint.json` beside TASK.md: where a pipeline task stands, for `orange task resume` and people. */
export interface Checkpoint {
  readonly state: string;
  readonly updated_at: string;
  readonly current_phase: string | null;
  readonly phases: readonly string[];
  readonly phases_done: readonly string[];
  readonly attempt: number;
  readonly tier: string | null;
  readonly intent: string | null;
  readonly confidence: number | null;
  readonly cost_total_usd: number;
  readonly budget_usd: number;
  readonly last_failure: string | null;
  readonly stop_reason: string | null;
}

/** The checkpoint of a task as its frontmatter stands. Pure. */
export function checkpointOf(meta: TaskMeta, now: Date = new Date()): Checkpoint {
  const f = pipelineFields(meta);
  return {
    state: meta.status,
    updated_at: now.toISOString(),
    current_phase: f.phase || null,
    phases: f.phases,
    phases_done: f.phasesDone,
    attempt: f.attempt,
    tier: f.tier || null,
    intent: f.intent || null,
    confidence: f.confidence,
    cost_total_usd: f.costTotalUsd,
    budget_usd: f.budgetUsd,
    last_failure: f.lastFailure || null,
    stop_reason: f.stopReason || null,
  };
}

export function checkpointPath(paths: OrangePaths, meta: Pick<TaskMeta, 'project' | 'id'>): string {
  return join(paths.taskDir(meta.project, meta.id), 'checkpoint.json');
}

/** Writes the checkpoint atomically (temp file + rename): a reader sees the old or the new one. */
export async function writeCheckpoint(paths: OrangePaths, meta: TaskMeta): Promise<Checkpoint> {
  const checkpoint = checkpointOf(meta);
  await writeFileAtomic(checkpointPath(paths, meta), `${JSON.stringify(checkpoint, null, 2)}\n`);
  return checkpoint;
}
