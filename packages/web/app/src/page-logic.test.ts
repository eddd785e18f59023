import { describe, expect, it } from 'vitest';
import type { BoardRow } from '../../src/protocol';
import { historyEntry } from './history-text';
import { parseRoute, routeHash, taskPath } from './route';
import { blockText, inlineText, safeHref } from './shown-text';
import { actionButtons } from './task-actions';
import { fittedFontSize, isTerminalReport, MAX_FONT, MIN_FONT, proposedSize } from './terminal-fit';

describe('routes', () => {
  it('reads the board and task pages from the hash, and writes them back', () => {
    expect(parseRoute('')).toEqual({ page: 'board' });
    expect(parseRoute('#/')).toEqual({ page: 'board' });
    expect(parseRoute('#/task/my%20proj/abc')).toEqual({ page: 'task', project: 'my proj', id: 'abc', tab: null });
    expect(parseRoute('#/task/p/abc/diff')).toEqual({ page: 'task', project: 'p', id: 'abc', tab: 'diff' });
    expect(parseRoute('#/task/%E0%A4%A/abc')).toEqual({ page: 'board' });
    expect(routeHash({ page: 'task', project: 'a/b', id: 'x', tab: 'pr' })).toBe('#/task/a%2Fb/x/pr');
    expect(taskPath({ project: 'a b', id: 'x' })).toBe('/api/tasks/a%20b/x');
  });
});

describe('shown text', () => {
  it('makes controls, bidi and invisible characters visible', () => {
    expect(inlineText('a\nb\u001b[31m\u202e\u200b')).toBe('a⏎b␛[31m\\u202e\\u200b');
    expect(blockText('line 1\r\nline\t2\u0007')).toBe('line 1\nline\t2␇');
  });

  it('takes only http(s) links', () => {
    expect(safeHref('https://github.com/o/r/pull/1')).toBe('https://github.com/o/r/pull/1');
    expect(safeHref('javascript:alert(1)')).toBeNull();
    expect(safeHref(' JAVASCRIPT:alert(1)')).toBeNull();
    expect(safeHref('//evil.example')).toBeNull();
    expect(safeHref(null)).toBeNull();
  });
});

describe('history', () => {
  it('shows a status change as from → to, with its other fields', () => {
    const entry = historyEntry({ type: 'status.changed', timestamp: '2025-01-01T00:00:00Z', from: 'working', to: 'agent-review', actor: 'worker', reason: 'done' });
    expect(entry.headline).toBe('working → agent-review');
    expect(entry.fields).toEqual([
      ['actor', 'worker'],
      ['reason', 'done'],
    ]);
  });

  it('shows a failed hook as its hook and error, never as a move', () => {
    const entry = historyEntry({ type: 'hook.failed', timestamp: 't', hook: 'spawn_agent', error: 'no harness', from: 'pending', to: 'working', attempt: 2 });
    expect(entry.headline).toBe('spawn_agent: no harness');
    expect(entry.fields).toEqual([
      ['from', 'pending'],
      ['to', 'working'],
      ['attempt', '2'],
    ]);
  });
});

describe('task actions', () => {
  const base: BoardRow = {
    project: 'p', id: 'i', branch: 'b', summary: '', status: 'reviewing', workflow: null, harness: null, workspace: 1, liveness: 'none', alive: [], expected: [],
    terminal: false, active: true, waiting: false, attention: null, tampered: [], targets: ['working', 'done'], forcedTargets: [], cancel: 'cancel', pr: null,
    ahead: 1, added: 1, removed: 0, createdAt: '', updatedAt: '', revision: 1,
  };
  const applying = (row: BoardRow, pipeline = false) => actionButtons(row, pipeline, false).filter((b) => b.applies).map((b) => b.name);

  it('offers request changes and merge in review', () => {
    expect(applying(base)).toEqual(['request-changes', 'merge', 'pr', 'cancel']);
  });

  it('offers a force-merge while the review has not passed', () => {
    const buttons = actionButtons({ ...base, status: 'working', targets: ['agent-review'], forcedTargets: ['done'] }, false, false);
    expect(buttons.find((b) => b.name === 'merge')).toMatchObject({ label: 'Force-merge', applies: true });
  });

  it('offers spawn to a waiting task, respawn to a dead agent, delete to a finished one', () => {
    expect(applying({ ...base, status: 'pending', waiting: true, targets: ['working'] })).toContain('spawn');
    expect(applying({ ...base, status: 'working', liveness: 'dead', expected: ['worker'], targets: [] })).toContain('respawn');
    expect(applying({ ...base, status: 'done', terminal: true, active: false, targets: [], cancel: null })).toEqual(['delete']);
  });

  it('resumes a pipeline instead of respawning it', () => {
    const stopped = { ...base, status: 'stopped', liveness: 'dead' as const, expected: ['worker' as const], targets: [] };
    expect(applying(stopped, true)).toContain('resume');
    expect(applying(stopped, true)).not.toContain('respawn');
  });

  it('keeps every button, so that a refusal can say why', () => {
    expect(actionButtons(base, false, false).map((b) => b.name)).toEqual(['spawn', 'respawn', 'resume', 'request-changes', 'clarify', 'merge', 'pr', 'sync-pr', 'cancel', 'delete']);
  });
});

describe('terminal fit', () => {
  it('scales the font so the columns fit, within bounds', () => {
    expect(fittedFontSize(1200, 120, 0.6)).toBe(MAX_FONT);
    expect(fittedFontSize(1000, 120, 0.6)).toBe(13.5);
    expect(fittedFontSize(600, 120, 0.6)).toBe(8);
    expect(fittedFontSize(300, 200, 0.6)).toBe(MIN_FONT);
  });

  it('proposes the cells an area holds at a normal font', () => {
    expect(proposedSize(840, 480, 14, 0.6)).toEqual({ cols: 100, rows: 28 });
  });

  it("tells the terminal's own answers from keys typed", () => {
    expect(isTerminalReport('\u001b[?1;2c')).toBe(true);
    expect(isTerminalReport('\u001b[12;4R')).toBe(true);
    expect(isTerminalReport('\u001b]11;rgb:0000/0000/0000\u001b\\')).toBe(true);
    expect(isTerminalReport('\u001b[A')).toBe(false);
    expect(isTerminalReport('ls\r')).toBe(false);
  });
});
