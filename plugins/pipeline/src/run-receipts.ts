import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic, type Orange, type TaskMeta } from '@orange/core';
import { pipelineFields, roundUsd, spentUsd } from './policy.js';

/**
 * What a finished headless run cost and said, written the moment it ends — before the driver waits
 * for the task lock to record it. A cancel holds that lock while it stops the driver, so a driver
 * that waited to record a run ending then would be killed with the run's cost in its memory. The
 * receipt outlives it: whoever holds the lock next (the driver, the cancel's `stop_pipeline`, a
 * resume) folds it into the ledger and `cost_total_usd`.
 */
export interface RunReceipt {
  /** The run's stamp (its log is `runs/<stamp>.log`): folded once, whoever folds it. */
  readonly run: string;
  readonly phase: string;
  readonly tier: string;
  readonly ok: boolean;
  readonly cost_usd: number;
  readonly log: string;
}

const SUFFIX = '.receipt.json';

function runsDir(orange: Orange, meta: Pick<TaskMeta, 'project' | 'id'>): string {
  return join(orange.paths.taskDir(meta.project, meta.id), 'runs');
}

/** Writes a run's receipt (atomically: a folder reader sees all of it or nothing). */
export async function writeReceipt(orange: Orange, meta: Pick<TaskMeta, 'project' | 'id'>, receipt: RunReceipt): Promise<void> {
  await writeFileAtomic(join(runsDir(orange, meta), `${receipt.run}${SUFFIX}`), `${JSON.stringify(receipt)}\n`);
}

/**
 * Folds every receipt of the task into its ledger (a `pipeline.run` event each, unless one for that
 * run is there already) and removes it; returns the task's cost of record afterwards: what its
 * ledger says its runs cost, never less than `cost_total_usd` says. **The task lock must be held.**
 */
export async function foldReceipts(orange: Orange, meta: TaskMeta): Promise<number> {
  const dir = runsDir(orange, meta);
  const names = (await readdir(dir).catch(() => [] as string[])).filter((name) => name.endsWith(SUFFIX)).sort();
  const history = await orange.store.history(meta.project, meta.id);
  for (const name of names) {
    const receipt = parseReceipt(await readFile(join(dir, name), 'utf8').catch(() => ''));
    if (receipt !== null && !history.some((event) => event.type === 'pipeline.run' && event.run === receipt.run)) {
      const { run, phase, tier, ok, cost_usd, log } = receipt;
      history.push(await orange.store.appendHistory(meta.project, meta.id, { type: 'pipeline.run', phase, tier, ok, cost_usd, log, run }));
    }
    await rm(join(dir, name), { force: true });
  }
  return roundUsd(Math.max(spentUsd(history), pipelineFields(meta).costTotalUsd));
}

function parseReceipt(text: string): RunReceipt | null {
  try {
    const value = JSON.parse(text) as Partial<RunReceipt>;
    if (typeof value.run !== 'string' || typeof value.phase !== 'string' || typeof value.cost_usd !== 'number') return null;
    return { run: value.run, phase: value.phase, tier: String(value.tier ?? ''), ok: value.ok === true, cost_usd: value.cost_usd, log: String(value.log ?? '') };
  } catch {
    return null;
  }
}
