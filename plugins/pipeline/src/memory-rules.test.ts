import { describe, expect, it } from 'vitest';
import { parseMemoryEntry, type MemoryEntry } from './memory.js';
import { LESSONS_REQUEST, memoryPrompt, PROMPT_ENTRIES, recurringChecks, relevantEntries, rememberedTier } from './memory-rules.js';

const TIERS = ['haiku', 'sonnet', 'opus'];

let clock = 0;
/** An entry completed after every one made before it. */
function entry(fields: Partial<MemoryEntry> & { intent: string }): MemoryEntry {
  clock += 1;
  const parsed = parseMemoryEntry(JSON.stringify({ task: `T${clock}`, summary: `task ${clock}`, completed_at: new Date(Date.UTC(2026, 10, 1, 0, clock)).toISOString(), tier: 'haiku', ...fields }));
  if (!('entry' in parsed)) throw new Error(parsed.error);
  return parsed.entry;
}

const checkFailed = (check: string) => ({ failed_checks: [{ check, failures: 1, fixed_by: null }] });

describe('which entries a prompt shows', () => {
  it("shows the task's intent first, then the others, each newest first", () => {
    const [b1, f1, b2, f2] = [entry({ intent: 'bugfix' }), entry({ intent: 'feature' }), entry({ intent: 'bugfix' }), entry({ intent: 'feature' })];
    expect(relevantEntries([b1!, f1!, b2!, f2!], 'bugfix').map((e) => e.task)).toEqual([b2!.task, b1!.task, f2!.task, f1!.task]);
    // The classifier does not know the intent yet: newest first.
    expect(relevantEntries([b1!, f1!, b2!, f2!], null).map((e) => e.task)).toEqual([f2!.task, b2!.task, f1!.task, b1!.task]);
  });

  it('orders by completion time, not by the order given', () => {
    const [old, recent] = [entry({ intent: 'docs' }), entry({ intent: 'docs' })];
    expect(relevantEntries([recent!, old!], 'docs').map((e) => e.task)).toEqual([recent!.task, old!.task]);
  });

  it(`shows at most ${PROMPT_ENTRIES} entries and stops before the character cap`, () => {
    const many = Array.from({ length: 12 }, () => entry({ intent: 'bugfix' }));
    expect(relevantEntries(many, 'bugfix')).toHaveLength(PROMPT_ENTRIES);
    const long = Array.from({ length: 4 }, () => entry({ intent: 'bugfix', lessons: 'x'.repeat(500) }));
    expect(relevantEntries(long, 'bugfix', { entries: 10, chars: 1300 })).toHaveLength(2);
  });
});

describe('the starting tier memory asks for', () => {
  it('starts an intent at sonnet when its last three tasks all needed sonnet', () => {
    const entries = [entry({ intent: 'bugfix', tier: 'sonnet' }), entry({ intent: 'bugfix', tier: 'sonnet' }), entry({ intent: 'bugfix', tier: 'sonnet' })];
    expect(rememberedTier(entries, 'bugfix', TIERS, 'haiku')).toEqual({ intent: 'bugfix', tier: 'sonnet', from: 'haiku', tasks: entries.map((e) => e.task) });
  });

  it('takes the lowest tier of the three: two on opus and one on sonnet start at sonnet', () => {
    const entries = [entry({ intent: 'bugfix', tier: 'opus' }), entry({ intent: 'bugfix', tier: 'sonnet' }), entry({ intent: 'bugfix', tier: 'opus' })];
    expect(rememberedTier(entries, 'bugfix', TIERS, 'haiku')?.tier).toBe('sonnet');
  });

  it('changes nothing with fewer than three tasks, or when one of the last three passed at the first tier', () => {
    const two = [entry({ intent: 'bugfix', tier: 'sonnet' }), entry({ intent: 'bugfix', tier: 'sonnet' })];
    expect(rememberedTier(two, 'bugfix', TIERS, 'haiku')).toBeNull();
    const cheapLast = [...two, entry({ intent: 'bugfix', tier: 'sonnet' }), entry({ intent: 'bugfix', tier: 'haiku' })];
    expect(rememberedTier(cheapLast, 'bugfix', TIERS, 'haiku')).toBeNull();
  });

  it('reads only the same intent, and only tiers the harness has', () => {
    const entries = [
      entry({ intent: 'bugfix', tier: 'sonnet' }),
      entry({ intent: 'bugfix', tier: 'sonnet' }),
      entry({ intent: 'feature', tier: 'haiku' }),
      entry({ intent: 'bugfix', tier: 'gpt-5' }),
      entry({ intent: 'bugfix', tier: 'sonnet' }),
    ];
    expect(rememberedTier(entries, 'bugfix', TIERS, 'haiku')?.tasks).toEqual([entries[0]!.task, entries[1]!.task, entries[4]!.task]);
    expect(rememberedTier(entries, 'feature', TIERS, 'haiku')).toBeNull();
  });

  it("never lowers the route's own tier", () => {
    const entries = [entry({ intent: 'bugfix', tier: 'sonnet' }), entry({ intent: 'bugfix', tier: 'sonnet' }), entry({ intent: 'bugfix', tier: 'sonnet' })];
    expect(rememberedTier(entries, 'bugfix', TIERS, 'sonnet')).toBeNull();
    expect(rememberedTier(entries, 'bugfix', TIERS, 'opus')).toBeNull();
  });
});

describe('checks that keep failing', () => {
  it("names a check that failed in two of the project's last five tasks, most often first, whatever their intent", () => {
    const entries = [
      entry({ intent: 'bugfix', ...checkFailed('npm run lint') }),
      entry({ intent: 'bugfix', ...checkFailed('npm test') }),
      entry({ intent: 'feature', ...checkFailed('npm test') }),
      entry({ intent: 'docs' }),
      entry({ intent: 'bugfix', failed_checks: [{ check: 'npm test', failures: 3, fixed_by: null }, { check: 'npm run lint', failures: 1, fixed_by: null }] }),
      entry({ intent: 'bugfix', ...checkFailed('tsc') }),
    ];
    // The lint failure of the oldest task is out of the window: lint failed once in the last five.
    expect(recurringChecks(entries)).toEqual([{ check: 'npm test', tasks: 3, of: 5 }]);
    entries.push(entry({ intent: 'docs', ...checkFailed('npm run lint') }));
    expect(recurringChecks(entries)).toEqual([
      // As often: by name.
      { check: 'npm run lint', tasks: 2, of: 5 },
      { check: 'npm test', tasks: 2, of: 5 },
    ]);
  });
});

describe('the {memory} placeholder', () => {
  it('is empty with memory off, and for a classifier with no entries', () => {
    expect(memoryPrompt({ entries: null, intent: 'bugfix', firstPhase: true, askLessons: true })).toBe('');
    expect(memoryPrompt({ entries: [], intent: null })).toBe('');
  });

  it('gives a phase the entries, the checks that keep failing (first phase only) and the request for lessons, between blank lines', () => {
    const entries = [entry({ intent: 'bugfix', summary: 'fix A', ...checkFailed('npm test') }), entry({ intent: 'bugfix', summary: 'fix B', ...checkFailed('npm test') })];
    const first = memoryPrompt({ entries, intent: 'bugfix', firstPhase: true, askLessons: true });
    expect(first.startsWith("\nWhat earlier tasks in this repository taught (Orange's memory, .orange/memory/; bugfix tasks first, newest first):\n- bugfix task \"fix B\"")).toBe(true);
    expect(first).toContain('\n\nChecks that keep failing in this repository; run them yourself before you finish: `npm test` (failed in 2 of the last 2 tasks).\n\n');
    expect(first.endsWith(`\n\n${LESSONS_REQUEST}\n`)).toBe(true);
    const second = memoryPrompt({ entries, intent: 'bugfix', firstPhase: false, askLessons: true });
    expect(second).not.toContain('Checks that keep failing');
  });
});
