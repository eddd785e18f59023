/**
 * `orange memory list | show | forget` on a project's `.orange/memory/`, as people read them:
 * entries as a merged task leaves them in the checkout, one-line refusals, --json.
 */
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliSandbox } from './cli-sandbox.js';

let box: CliSandbox;
let other: string;

const A = 'Aaaaaaaaaaaaaaaaaaaaa';
const B = 'Bbbbbbbbbbbbbbbbbbbbb';
const ENTRY_A = {
  version: 1,
  task: A,
  summary: 'Fix the parser crash',
  completed_at: '2026-11-01T10:00:00.000Z',
  intent: 'bugfix',
  phases: ['reproduce', 'fix'],
  start_tier: 'haiku',
  tier: 'sonnet',
  attempts: 4,
  failed_runs: [{ phase: 'reproduce', tier: 'haiku', count: 2 }],
  cost_usd: 0.13,
  failed_checks: [{ check: 'npm test', failures: 1, fixed_by: { phase: 'fix', tier: 'sonnet' } }],
  lessons: 'Reset the parser state in beforeEach.',
};
const ENTRY_B = { task: B, summary: 'Document the flags', completed_at: '2026-11-02T10:00:00.000Z', intent: 'docs', phases: ['write'], start_tier: 'haiku', tier: 'haiku', attempts: 1, cost_usd: 0.02 };
const FILE_A = '.orange/memory/2026-11-01T10-00-00-000Z-Aaaaaaaaaaaaaaaaaaaaa.json';
const FILE_B = '.orange/memory/2026-11-02T10-00-00-000Z-Bbbbbbbbbbbbbbbbbbbbb.json';

async function entries(repo: string): Promise<void> {
  await mkdir(join(repo, '.orange', 'memory'), { recursive: true });
  await writeFile(join(repo, FILE_B), JSON.stringify(ENTRY_B, null, 2));
  await writeFile(join(repo, FILE_A), JSON.stringify(ENTRY_A, null, 2));
}

beforeAll(async () => {
  box = await CliSandbox.create();
  await entries(box.repo);
  await writeFile(join(box.repo, '.orange', 'memory', 'broken.json'), '{"intent":');
  other = await box.addProject('other');
});
afterAll(() => box?.cleanup());

describe('orange memory list', () => {
  it('lists the entries of the project you are in, oldest first, and names a file that is not one on stderr', async () => {
    const result = await box.orange(['memory', 'list']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trimEnd().split('\n')).toEqual([
      '#  COMPLETED         INTENT  TIER          RUNS  COST   CHECKS FAILED  TASK                   SUMMARY',
      `1  2026-11-01 10:00  bugfix  haiku→sonnet  4     $0.13  1              ${A}  Fix the parser crash`,
      `2  2026-11-02 10:00  docs    haiku         1     $0.02  0              ${B}  Document the flags`,
    ]);
    expect(result.stderr).toBe('warning: memory entry .orange/memory/broken.json skipped: not JSON (Unexpected end of JSON input)');
  });

  it('gives every field with --json', async () => {
    const result = await box.orange(['memory', 'list', '--json']);
    const json = JSON.parse(result.stdout) as { project: string; entries: Array<Record<string, unknown>>; unreadable: unknown[] };
    expect(json.project).toBe('demo');
    expect(json.entries[0]).toEqual({ n: 1, file: FILE_A, ...ENTRY_A });
    expect(json.entries[1]).toMatchObject({ n: 2, file: FILE_B, intent: 'docs', failed_runs: [], failed_checks: [], lessons: '' });
    expect(json.unreadable).toEqual([{ file: '.orange/memory/broken.json', error: 'not JSON (Unexpected end of JSON input)' }]);
  });

  it('says when a project has no memory yet; -p names another project', async () => {
    const result = await box.orange(['memory', 'list', '-p', 'other']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toBe(`project other has no memory entries yet (${other}/.orange/memory/; a completed pipeline task adds one to its branch)`);
    expect(await box.json(['memory', 'list', '--project', 'other'])).toEqual({ project: 'other', entries: [], unreadable: [] });
  });

  it('refuses an unknown project, or none found, in one line', async () => {
    expect(await box.jsonError(['memory', 'list', '-p', 'nope'])).toMatchObject({ code: 'E_PROJECT_NOT_FOUND', exit: 1 });
    const outside = await box.orange(['memory', 'list'], { cwd: box.dir });
    expect(outside).toEqual({ code: 1, stdout: '', stderr: 'orange: not inside a registered project; run this in a repository added with orange project add, or pass --project NAME' });
  });
});

describe('orange memory show', () => {
  it('shows an entry by its number or its task id, with the line a prompt gets', async () => {
    const result = await box.orange(['memory', 'show', '1']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.split('\n')).toEqual([
      'memory entry 1 of project demo',
      `file: ${FILE_A}`,
      `task: ${A}`,
      'summary: Fix the parser crash',
      'completed: 2026-11-01T10:00:00.000Z',
      'intent: bugfix',
      'phases: reproduce → fix',
      'tier: sonnet (started at haiku)',
      'runs: 4',
      'failed runs: reproduce at haiku ×2',
      'cost: $0.1300',
      'failed checks: npm test ×1 (fixed by fix at sonnet)',
      '',
      'Lessons:',
      'Reset the parser state in beforeEach.',
      '',
      'In prompts:',
      'bugfix task "Fix the parser crash" (2026-11-01): reproduce → fix passed at sonnet (started at haiku), 4 phase runs, $0.13; failed runs: reproduce at haiku ×2; ' +
        'checks that failed: `npm test` ×1, fixed by fix at sonnet; lessons: Reset the parser state in beforeEach.',
    ]);
    const json = await box.json<{ n: number; file: string; entry: Record<string, unknown>; prompt_line: string }>(['memory', 'show', B]);
    expect(json).toMatchObject({ project: 'demo', n: 2, file: FILE_B, entry: { task: B, intent: 'docs' } });
    expect(json.prompt_line).toBe('docs task "Document the flags" (2026-11-02): write passed at haiku, 1 phase run, $0.02');
  });

  it('refuses an entry that does not exist, or no entry, in one line', async () => {
    expect(await box.orange(['memory', 'show', '9'])).toEqual({ code: 1, stdout: '', stderr: 'orange: no memory entry 9: project demo has entries 1–2 (see orange memory list)' });
    expect(await box.jsonError(['memory', 'show', 'nope'])).toEqual({
      code: 'E_INVALID_INPUT',
      error: 'no memory entry "nope": give its number from orange memory list or a task id (project demo has entries 1–2)',
      exit: 1,
    });
    expect(await box.jsonError(['memory', 'show', '1', '-p', 'other'])).toMatchObject({ code: 'E_INVALID_INPUT', error: 'no memory entry 1: project other has no memory entries (see orange memory list)' });
    expect(await box.jsonError(['memory', 'show'])).toMatchObject({ code: 'E_USAGE', exit: 2 });
  });
});

describe('orange memory forget', () => {
  it('needs one entry or --all, not both', async () => {
    for (const args of [['memory', 'forget'], ['memory', 'forget', '1', '--all']]) {
      expect(await box.jsonError(args)).toEqual({ code: 'E_USAGE', error: 'name one entry (its number in orange memory list, or its task id) or pass --all, not both', exit: 2 });
    }
    expect(existsSync(join(box.repo, FILE_A))).toBe(true);
  });

  it('removes one entry from the checkout and says to commit it; the others are numbered again', async () => {
    const result = await box.orange(['memory', 'forget', '1']);
    expect(result).toEqual({
      code: 0,
      stderr: '',
      stdout: `forgot entry 1 (task ${A}): removed ${FILE_A}\ncommit the removal in ${box.repo} so that tasks forget it too`,
    });
    expect(existsSync(join(box.repo, FILE_A))).toBe(false);
    const list = await box.json<{ entries: Array<{ n: number; task: string }> }>(['memory', 'list']);
    expect(list.entries.map((e) => [e.n, e.task])).toEqual([[1, B]]);
  });

  it('forgets every entry with --all (-p another project), and says when there is nothing to forget', async () => {
    await entries(other);
    expect(await box.json(['memory', 'forget', '--all', '-p', 'other'])).toEqual({
      project: 'other',
      forgotten: [
        { n: 1, file: FILE_A, task: A },
        { n: 2, file: FILE_B, task: B },
      ],
    });
    expect(await box.json(['memory', 'list', '-p', 'other'])).toMatchObject({ entries: [] });
    const again = await box.orange(['memory', 'forget', '--all', '-p', 'other']);
    expect(again.stdout).toBe('project other has no memory entries; nothing to forget');
  });
});
