import { parseSections, type TaskMeta } from '@orange/core';
import { z } from 'zod';
import { pipelineFields } from './policy.js';

/** Where a project's memory lives in its repository: one JSON file per completed task. */
export const MEMORY_DIR = '.orange/memory';

/** The longest lessons note kept from a task's `## Lessons` section. */
export const LESSONS_CHARS = 600;

const SUMMARY_CHARS = 200;

const Tiered = z.object({ phase: z.string(), tier: z.string() });

// Lenient on reading: an entry is a file in the repository, and a person may edit it by hand.
// Only the intent is required; every other field takes its default.
const MemoryEntrySchema = z.object({
  version: z.literal(1).default(1),
  task: z.string().default(''),
  summary: z.string().default(''),
  completed_at: z.string().default(''),
  intent: z.string().min(1, 'must name the intent'),
  phases: z.array(z.string()).default([]),
  start_tier: z.string().default(''),
  tier: z.string().default(''),
  attempts: z.number().int().nonnegative().default(0),
  failed_runs: z.array(Tiered.extend({ count: z.number().int().positive() })).default([]),
  cost_usd: z.number().nonnegative().default(0),
  failed_checks: z.array(z.object({ check: z.string(), failures: z.number().int().positive(), fixed_by: Tiered.nullable().default(null) })).default([]),
  lessons: z.string().default(''),
});

/** What one completed task taught: one file of `.orange/memory/` (docs/data.md). */
export type MemoryEntry = z.output<typeof MemoryEntrySchema>;

/** A memory entry from a file's text, or why it is not one. Pure. */
export function parseMemoryEntry(text: string): { entry: MemoryEntry } | { error: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { error: `not JSON (${error instanceof Error ? error.message : String(error)})` };
  }
  const parsed = MemoryEntrySchema.safeParse(json);
  if (parsed.success) return { entry: parsed.data };
  const issue = parsed.error.issues[0];
  return { error: `field "${issue?.path.join('.') || '(entry)'}": ${issue?.message ?? 'invalid'}` };
}

type Event = { readonly type: string; readonly [field: string]: unknown };

const str = (value: unknown): string => (typeof value === 'string' ? value : '');

/**
 * The entry a completed task leaves, from its fields, its body's `## Lessons` and its history:
 * every headless phase run (`pipeline.run`, the classifier's left out) and every check
 * (`pipeline.check`). A failed check is "fixed by" the last phase run that succeeded after it
 * failed and before it passed. Pure.
 */
export function memoryEntryOf(task: { readonly meta: TaskMeta; readonly body: string }, history: readonly Event[], now: Date = new Date()): MemoryEntry {
  const f = pipelineFields(task.meta);
  const runs = history.filter((e) => e.type === 'pipeline.run' && e.phase !== 'classify');
  const failedRuns: { phase: string; tier: string; count: number }[] = [];
  for (const run of runs) {
    if (run.ok !== false) continue;
    const phase = str(run.phase);
    const tier = str(run.tier);
    const known = failedRuns.find((r) => r.phase === phase && r.tier === tier);
    if (known) known.count += 1;
    else failedRuns.push({ phase, tier, count: 1 });
  }
  const checks = new Map<string, { check: string; failures: number; fixed_by: { phase: string; tier: string } | null; open: boolean }>();
  let lastSuccess: { phase: string; tier: string } | null = null;
  for (const event of history) {
    if (event.type === 'pipeline.run' && event.phase !== 'classify' && event.ok === true) lastSuccess = { phase: str(event.phase), tier: str(event.tier) };
    if (event.type !== 'pipeline.check') continue;
    const check = Array.isArray(event.argv) ? event.argv.map(String).join(' ') : str(event.argv);
    const known = checks.get(check);
    if (event.ok === false) {
      if (known) {
        known.failures += 1;
        known.open = true;
      } else {
        checks.set(check, { check, failures: 1, fixed_by: null, open: true });
      }
      // Only a run after this failure can have fixed it.
      lastSuccess = null;
    } else if (event.ok === true && known?.open) {
      known.fixed_by = lastSuccess;
      known.open = false;
    }
  }
  const lessons = (parseSections(task.body).get('Lessons') ?? '').trim();
  return {
    version: 1,
    task: task.meta.id,
    summary: task.meta.summary.trim().slice(0, SUMMARY_CHARS),
    completed_at: now.toISOString(),
    intent: f.intent,
    phases: [...f.phases],
    start_tier: str(runs[0]?.tier) || f.tier,
    tier: f.tier,
    attempts: runs.length,
    failed_runs: failedRuns,
    cost_usd: f.costTotalUsd,
    failed_checks: [...checks.values()].map(({ check, failures, fixed_by }) => ({ check, failures, fixed_by })),
    lessons: lessons.length > LESSONS_CHARS ? `${lessons.slice(0, LESSONS_CHARS - 1)}…` : lessons,
  };
}

const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();
const tierName = (tier: string): string => tier || 'the default model';

/** One entry as one line of a prompt (and of `orange memory list --long`). Pure. */
export function memoryLine(entry: MemoryEntry): string {
  const date = entry.completed_at.slice(0, 10) || 'undated';
  const started = entry.start_tier && entry.start_tier !== entry.tier ? ` (started at ${entry.start_tier})` : '';
  const runs = `${entry.attempts} phase run${entry.attempts === 1 ? '' : 's'}`;
  const parts = [`${entry.intent} task "${oneLine(entry.summary)}" (${date}): ${entry.phases.join(' → ') || 'no phases'} passed at ${tierName(entry.tier)}${started}, ${runs}, $${entry.cost_usd.toFixed(2)}`];
  if (entry.failed_runs.length > 0) parts.push(`failed runs: ${entry.failed_runs.map((r) => `${r.phase} at ${tierName(r.tier)} ×${r.count}`).join(', ')}`);
  if (entry.failed_checks.length > 0) {
    parts.push(
      `checks that failed: ${entry.failed_checks.map((c) => `\`${oneLine(c.check)}\` ×${c.failures}${c.fixed_by ? `, fixed by ${c.fixed_by.phase} at ${tierName(c.fixed_by.tier)}` : ''}`).join('; ')}`,
    );
  }
  if (entry.lessons) parts.push(`lessons: ${oneLine(entry.lessons)}`);
  return parts.join('; ');
}
