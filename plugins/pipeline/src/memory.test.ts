import type { TaskMeta } from '@orange/core';
import { describe, expect, it } from 'vitest';
import { LESSONS_CHARS, memoryEntryOf, memoryLine, parseMemoryEntry } from './memory.js';

const meta = (patch: Record<string, unknown> = {}) =>
  ({
    id: 'T1',
    project: 'demo',
    summary: 'fix the login crash',
    status: 'completed',
    intent: 'bugfix',
    pipeline_phases: 'reproduce,fix',
    phases_done: 'reproduce,fix',
    tier: 'sonnet',
    cost_total_usd: 0.27,
    ...patch,
  }) as unknown as TaskMeta;

const run = (phase: string, tier: string, ok: boolean) => ({ type: 'pipeline.run', phase, tier, ok, cost_usd: 0.03 });
const check = (argv: string[], ok: boolean) => ({ type: 'pipeline.check', argv, exit_code: ok ? 0 : 1, ok });
const NOW = new Date('2026-11-27T04:30:00.000Z');

describe('a memory entry', () => {
  it('records the intent, phases, the tier that passed, the runs, the failed runs and the cost from the history', () => {
    const history = [
      { type: 'pipeline.classified', intent: 'bugfix', confidence: 0.9 },
      run('classify', 'haiku', true),
      run('reproduce', 'haiku', false),
      run('reproduce', 'haiku', false),
      { type: 'status.changed', from: 'retrying', to: 'escalating' },
      run('reproduce', 'sonnet', true),
      run('fix', 'sonnet', true),
      check(['npm', 'test'], true),
    ];
    expect(memoryEntryOf({ meta: meta(), body: '' }, history, NOW)).toEqual({
      version: 1,
      task: 'T1',
      summary: 'fix the login crash',
      completed_at: '2026-11-27T04:30:00.000Z',
      intent: 'bugfix',
      phases: ['reproduce', 'fix'],
      start_tier: 'haiku',
      tier: 'sonnet',
      attempts: 4,
      failed_runs: [{ phase: 'reproduce', tier: 'haiku', count: 2 }],
      cost_usd: 0.27,
      failed_checks: [],
      lessons: '',
    });
  });

  it('names the phase run that fixed each failed check: the last success after the failure, before the pass', () => {
    const history = [
      run('fix', 'haiku', true),
      check(['npm', 'test'], false),
      run('fix', 'haiku', false),
      run('fix', 'sonnet', true),
      check(['npm', 'test'], false),
      run('fix', 'sonnet', true),
      check(['npm', 'test'], true),
      check(['npm', 'run', 'lint'], false),
      check(['npm', 'test'], true),
    ];
    const entry = memoryEntryOf({ meta: meta(), body: '' }, history, NOW);
    expect(entry.failed_checks).toEqual([
      { check: 'npm test', failures: 2, fixed_by: { phase: 'fix', tier: 'sonnet' } },
      // Never passed after it failed (the check list changed): no fix to name.
      { check: 'npm run lint', failures: 1, fixed_by: null },
    ]);
  });

  it("keeps the agent's ## Lessons note, trimmed and cut to its limit", () => {
    const body = `## Context\nx\n\n## Lessons\n\n  Run npm test with --runInBand: the suite shares a port.  \n\n## Handoff\nDONE: y\n`;
    expect(memoryEntryOf({ meta: meta(), body }, [], NOW).lessons).toBe('Run npm test with --runInBand: the suite shares a port.');
    const long = memoryEntryOf({ meta: meta(), body: `## Lessons\n${'x'.repeat(5000)}\n` }, [], NOW).lessons;
    expect(long).toHaveLength(LESSONS_CHARS);
    expect(long.endsWith('…')).toBe(true);
  });

  it('keeps at most 200 characters of the summary and 600 of the lessons, as data.md says', () => {
    const exactly = memoryEntryOf({ meta: meta({ summary: 's'.repeat(200) }), body: `## Lessons\n${'l'.repeat(600)}\n` }, [], NOW);
    expect([exactly.summary.length, exactly.lessons]).toEqual([200, 'l'.repeat(600)]);
    const over = memoryEntryOf({ meta: meta({ summary: 's'.repeat(201) }), body: `## Lessons\n${'l'.repeat(601)}\n` }, [], NOW);
    expect([over.summary.length, over.lessons.length]).toEqual([200, 600]);
  });

  it('starts at the tier of record when no phase ran (a resumed task whose phases were all done)', () => {
    expect(memoryEntryOf({ meta: meta(), body: '' }, [], NOW)).toMatchObject({ start_tier: 'sonnet', attempts: 0 });
  });
});

describe('reading an entry', () => {
  it('takes a hand-edited entry with only an intent, giving every other field its default', () => {
    expect(parseMemoryEntry('{"intent":"docs","surprise":1}')).toEqual({
      entry: { version: 1, task: '', summary: '', completed_at: '', intent: 'docs', phases: [], start_tier: '', tier: '', attempts: 0, failed_runs: [], cost_usd: 0, failed_checks: [], lessons: '' },
    });
  });

  it('says why a file is not an entry, in one line', () => {
    expect(parseMemoryEntry('{"intent":')).toMatchObject({ error: expect.stringMatching(/^not JSON \(/) });
    expect(parseMemoryEntry('{"tier":"haiku"}')).toEqual({ error: 'field "intent": Invalid input: expected string, received undefined' });
    expect(parseMemoryEntry('{"intent":"bugfix","attempts":-1}')).toEqual({ error: 'field "attempts": Too small: expected number to be >=0' });
  });
});

describe('an entry as a prompt line', () => {
  it('says what passed where, what failed, what fixed the checks and the lessons, on one line', () => {
    const entry = memoryEntryOf(
      { meta: meta({ summary: 'fix the\nlogin crash' }), body: '## Lessons\nThe crash is in session.ts.\nRun npm test.\n' },
      [run('reproduce', 'haiku', false), run('reproduce', 'sonnet', true), check(['npm', 'test'], false), run('fix', 'sonnet', true), check(['npm', 'test'], true)],
      NOW,
    );
    expect(memoryLine(entry)).toBe(
      'bugfix task "fix the login crash" (2026-11-27): reproduce → fix passed at sonnet (started at haiku), 3 phase runs, $0.27; ' +
        'failed runs: reproduce at haiku ×1; checks that failed: `npm test` ×1, fixed by fix at sonnet; lessons: The crash is in session.ts. Run npm test.',
    );
  });
});
