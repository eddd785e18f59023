import { describe, expect, it } from 'vitest';
import type { BoardRow } from '../../src/protocol';
import { changesText, groupByStatus, prText, relativeTime, taskName, visibleRows, warningText } from './board-rows';

function row(patch: Partial<BoardRow>): BoardRow {
  return {
    project: 'web',
    id: 'a'.repeat(21),
    branch: 'main-work',
    summary: '',
    status: 'working',
    workflow: null,
    harness: null,
    workspace: 1,
    liveness: 'alive',
    alive: ['worker'],
    expected: ['worker'],
    terminal: false,
    active: true,
    waiting: false,
    attention: null,
    tampered: [],
    targets: [],
    forcedTargets: [],
    cancel: 'cancel',
    pr: null,
    ahead: null,
    added: null,
    removed: null,
    createdAt: '2025-01-01T00:00:00.000Z',
    updatedAt: '2025-01-01T00:00:00.000Z',
    revision: 1,
    ...patch,
  };
}

describe('visibleRows', () => {
  const rows = [
    row({ id: 'old', branch: 'fix-login', updatedAt: '2025-01-01T00:00:00.000Z' }),
    row({ id: 'new', branch: 'add-search', summary: 'Search the LOGS', updatedAt: '2025-01-02T00:00:00.000Z' }),
    row({ id: 'fin', branch: 'done-one', status: 'done', terminal: true, updatedAt: '2025-01-03T00:00:00.000Z' }),
  ];

  it('puts active tasks first, the most recently updated first within each', () => {
    expect(visibleRows(rows, 'all', '').map((r) => r.id)).toEqual(['new', 'old', 'fin']);
  });

  it('filters active and done tasks', () => {
    expect(visibleRows(rows, 'active', '').map((r) => r.id)).toEqual(['new', 'old']);
    expect(visibleRows(rows, 'done', '').map((r) => r.id)).toEqual(['fin']);
  });

  it('searches branch or summary, case-insensitive', () => {
    expect(visibleRows(rows, 'all', ' LOGIN ').map((r) => r.id)).toEqual(['old']);
    expect(visibleRows(rows, 'all', 'logs').map((r) => r.id)).toEqual(['new']);
  });
});

describe('groupByStatus', () => {
  it('groups in the lifecycle order, finished statuses last', () => {
    const rows = [row({ status: 'done', terminal: true }), row({ status: 'reviewing' }), row({ status: 'pending' }), row({ status: 'working' }), row({ status: 'executing' })];
    expect(groupByStatus(rows).map((g) => g.status)).toEqual(['pending', 'working', 'reviewing', 'executing', 'done']);
  });
});

describe('cells', () => {
  it('writes the PR cell as the dashboard does', () => {
    expect(prText(null)).toBe('');
    expect(prText({ url: 'u', number: 12, state: null, checks: null })).toBe('#12');
    expect(prText({ url: 'u', number: 12, state: 'open', checks: '✓' })).toBe('#12 open ✓');
    expect(prText({ url: 'u', number: null, state: 'merged', checks: null })).toBe('PR merged');
  });

  it('names the task with its project when every project is shown', () => {
    expect(taskName(row({}), true)).toBe('web/main-work');
    expect(taskName(row({}), false)).toBe('main-work');
  });

  it('writes changes and relative times', () => {
    expect(changesText(row({ added: 12, removed: 3 }))).toBe('+12 −3');
    expect(changesText(row({ added: 0, removed: 0 }))).toBe('');
    const now = Date.parse('2025-01-01T02:00:00.000Z');
    expect(relativeTime('2025-01-01T01:59:30.000Z', now)).toBe('30s ago');
    expect(relativeTime('2025-01-01T00:00:00.000Z', now)).toBe('2h ago');
    expect(relativeTime('not a date', now)).toBe('?');
  });

  it('says why a row wants a look', () => {
    expect(warningText(row({}))).toBeNull();
    expect(warningText(row({ attention: 'hook spawn_agent failed', tampered: ['status'] }))).toBe('hook spawn_agent failed · TASK.md shows forged values for status');
  });
});
