import { MEMORY_DIR, memoryLine, type MemoryEntry } from './memory.js';

/**
 * How memory is used, as fixed rules (docs/workflows.md, "Memory"). Every function here is pure:
 * the same entries give the same prompt and the same starting tier.
 */

/** At most this many entries go into one prompt… */
export const PROMPT_ENTRIES = 5;
/** …and at most this many characters of them. */
export const PROMPT_CHARS = 2400;
/** An intent whose last this-many tasks all passed above a tier starts above it. */
export const TIER_WINDOW = 3;
/** A check that failed in at least CHECK_REPEATS of the project's last CHECK_WINDOW tasks is named in the first phase's prompt. */
export const CHECK_WINDOW = 5;
export const CHECK_REPEATS = 2;

/** Oldest first, by completion time (entries are read in file-name order, which is the same unless renamed). */
function byTime(entries: readonly MemoryEntry[]): MemoryEntry[] {
  return [...entries].sort((a, b) => (a.completed_at < b.completed_at ? -1 : a.completed_at > b.completed_at ? 1 : 0));
}

/**
 * The entries a prompt shows: those of `intent` first, then the others, each group newest first;
 * at most PROMPT_ENTRIES and PROMPT_CHARS of their lines. `intent` null (the classifier): newest first.
 */
export function relevantEntries(entries: readonly MemoryEntry[], intent: string | null, limits: { entries: number; chars: number } = { entries: PROMPT_ENTRIES, chars: PROMPT_CHARS }): MemoryEntry[] {
  const newest = byTime(entries).reverse();
  const ordered = intent === null ? newest : [...newest.filter((e) => e.intent === intent), ...newest.filter((e) => e.intent !== intent)];
  const picked: MemoryEntry[] = [];
  let chars = 0;
  for (const entry of ordered) {
    if (picked.length >= limits.entries) break;
    const length = memoryLine(entry).length + 3;
    if (chars + length > limits.chars) break;
    picked.push(entry);
    chars += length;
  }
  return picked;
}

/** Why a task starts above its route's tier: the tasks that say so. */
export interface RememberedTier {
  readonly intent: string;
  readonly tier: string;
  /** The tier the route alone would start at. */
  readonly from: string;
  /** The task ids of the entries the rule read, oldest first. */
  readonly tasks: readonly string[];
}

/**
 * The starting tier memory asks for: when the last TIER_WINDOW tasks of `intent` (those whose
 * passing tier is one of `tiers`) all passed above the first tier, the lowest tier they passed at.
 * Memory only ever raises the route's tier; null when it does not (too few tasks, one passed at the
 * first tier, or the route starts that high already).
 */
export function rememberedTier(entries: readonly MemoryEntry[], intent: string, tiers: readonly string[], routeTier: string): RememberedTier | null {
  const last = byTime(entries)
    .filter((e) => e.intent === intent && tiers.includes(e.tier))
    .slice(-TIER_WINDOW);
  if (last.length < TIER_WINDOW) return null;
  const lowest = Math.min(...last.map((e) => tiers.indexOf(e.tier)));
  if (lowest <= 0 || lowest <= tiers.indexOf(routeTier)) return null;
  return { intent, tier: tiers[lowest] as string, from: routeTier, tasks: last.map((e) => e.task) };
}

/** A check that keeps failing: in how many of the last `of` tasks it failed before it passed. */
export interface RecurringCheck {
  readonly check: string;
  readonly tasks: number;
  readonly of: number;
}

/** Checks that failed in at least CHECK_REPEATS of the project's last CHECK_WINDOW tasks (any intent), most often first. */
export function recurringChecks(entries: readonly MemoryEntry[]): RecurringCheck[] {
  const last = byTime(entries).slice(-CHECK_WINDOW);
  const counts = new Map<string, number>();
  for (const entry of last) for (const check of new Set(entry.failed_checks.map((c) => c.check))) counts.set(check, (counts.get(check) ?? 0) + 1);
  return [...counts]
    .filter(([, n]) => n >= CHECK_REPEATS)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([check, tasks]) => ({ check, tasks, of: last.length }));
}

/** What a phase prompt asks of the agent when memory is on: the note the task's entry keeps. */
export const LESSONS_REQUEST =
  'If this task taught you something a later task in this repository should know (a pitfall, a command that must pass, a convention), ' +
  'write it in at most three lines under a "## Lessons" heading in this worktree\'s TASK.md (edit the file), keeping what an earlier phase wrote there. ' +
  "Orange keeps it in the project's memory when the task completes.";

export interface MemoryPromptInput {
  /** The project's entries; null when memory is off (the prompt then gets nothing). */
  readonly entries: readonly MemoryEntry[] | null;
  /** The task's intent; null for the classifier, which does not know it yet. */
  readonly intent: string | null;
  /** The first phase's prompt names the checks that keep failing. */
  readonly firstPhase?: boolean;
  /** Phase prompts ask for the lessons note. */
  readonly askLessons?: boolean;
}

/**
 * The `{memory}` placeholder of the classify and phase prompts: empty, or a block that starts and
 * ends with a newline (the templates put it on a line of its own between blank lines).
 */
export function memoryPrompt(input: MemoryPromptInput): string {
  if (input.entries === null) return '';
  const blocks: string[] = [];
  const picked = relevantEntries(input.entries, input.intent);
  if (picked.length > 0) {
    const order = input.intent === null ? 'newest first' : `${input.intent} tasks first, newest first`;
    blocks.push([`What earlier tasks in this repository taught (Orange's memory, ${MEMORY_DIR}/; ${order}):`, ...picked.map((e) => `- ${memoryLine(e)}`)].join('\n'));
  }
  if (input.firstPhase) {
    const checks = recurringChecks(input.entries);
    if (checks.length > 0) {
      blocks.push(`Checks that keep failing in this repository; run them yourself before you finish: ${checks.map((c) => `\`${c.check}\` (failed in ${c.tasks} of the last ${c.of} tasks)`).join(', ')}.`);
    }
  }
  if (input.askLessons) blocks.push(LESSONS_REQUEST);
  return blocks.length > 0 ? `\n${blocks.join('\n\n')}\n` : '';
}
