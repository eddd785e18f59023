import type { BoardRow, Liveness, PullRequestCell } from '../../src/protocol';
import { statusRank } from './status-colour';

// The board's meaning, as the terminal dashboard's `task-row.ts` and `task-table.tsx` have it.

/** Which rows the board shows. */
export type RowFilter = 'all' | 'active' | 'done';

export const FILTERS: readonly RowFilter[] = ['all', 'active', 'done'];

/** Active first, then terminal; most recently updated first within each. */
export function compareRows(a: BoardRow, b: BoardRow): number {
  // ISO timestamps order as plain strings.
  const byTime = a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : 0;
  return Number(a.terminal) - Number(b.terminal) || byTime || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** The rows to show, sorted, after the filter and the search (branch or summary, case-insensitive). */
export function visibleRows(rows: Iterable<BoardRow>, filter: RowFilter, search: string): BoardRow[] {
  const needle = search.trim().toLowerCase();
  const kept: BoardRow[] = [];
  for (const row of rows) {
    if (filter === 'active' && row.terminal) continue;
    if (filter === 'done' && !row.terminal) continue;
    if (needle && !row.branch.toLowerCase().includes(needle) && !row.summary.toLowerCase().includes(needle)) continue;
    kept.push(row);
  }
  return kept.sort(compareRows);
}

/** One status's column on the grouped board. */
export interface StatusGroup {
  readonly status: string;
  readonly rows: readonly BoardRow[];
}

/** The (already sorted) rows grouped by status, in the lifecycle's order; a workflow's own statuses by name among them. */
export function groupByStatus(rows: readonly BoardRow[]): StatusGroup[] {
  const groups = new Map<string, BoardRow[]>();
  for (const row of rows) {
    const group = groups.get(row.status);
    if (group) group.push(row);
    else groups.set(row.status, [row]);
  }
  return [...groups.entries()]
    .map(([status, grouped]) => ({ status, rows: grouped, terminal: grouped.every((r) => r.terminal) }))
    .sort((a, b) => Number(a.terminal) - Number(b.terminal) || statusRank(a.status) - statusRank(b.status) || (a.status < b.status ? -1 : a.status > b.status ? 1 : 0))
    .map(({ status, rows: grouped }) => ({ status, rows: grouped }));
}

/** The name in the TASK column: `project/branch` when the page shows every project. */
export function taskName(row: BoardRow, showProject: boolean): string {
  return showProject ? `${row.project}/${row.branch}` : row.branch;
}

/** The liveness face. */
export function livenessIcon(liveness: Liveness): string {
  return liveness === 'alive' ? '●' : liveness === 'dead' ? '✗' : liveness === 'starting' ? '◌' : '○';
}

/** What the face means, for its tooltip. */
export function livenessLabel(row: Pick<BoardRow, 'liveness' | 'alive'>): string {
  switch (row.liveness) {
    case 'alive':
      return `${row.alive.join(' and ') || 'agent'} alive`;
    case 'starting':
      return 'agent starting';
    case 'dead':
      return 'agent dead';
    default:
      return 'no agent';
  }
}

/** `#12 open ✓`, `#9 merged`, `#12` before the state is known, empty without a PR. */
export function prText(pr: PullRequestCell | null): string {
  if (!pr) return '';
  const number = pr.number === null ? 'PR' : `#${pr.number}`;
  const checks = pr.checks ? ` ${pr.checks}` : '';
  return pr.state ? `${number} ${pr.state}${checks}` : number;
}

/** Commits ahead, empty when none or unknown. */
export function aheadText(row: Pick<BoardRow, 'ahead'>): string {
  return row.ahead !== null && row.ahead > 0 ? String(row.ahead) : '';
}

/** `+12 −3`, empty when nothing changed or unknown. */
export function changesText(row: Pick<BoardRow, 'added' | 'removed'>): string {
  const added = row.added ?? 0;
  const removed = row.removed ?? 0;
  return added || removed ? `+${added} −${removed}` : '';
}

/** `5s ago`, `3m ago`, `2h ago`, `4d ago` (as the core's `relativeTime`). */
export function relativeTime(iso: string, now: number): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (Number.isNaN(seconds)) return '?';
  if (seconds < 60) return `${seconds}s ago`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h ago`;
  return `${Math.floor(seconds / 86_400)}d ago`;
}

/** Why a row wants a person's look (⚠): a failed hook, or engine-owned fields forged in TASK.md. */
export function warningText(row: Pick<BoardRow, 'attention' | 'tampered'>): string | null {
  const parts: string[] = [];
  if (row.attention) parts.push(row.attention);
  if (row.tampered.length > 0) parts.push(`TASK.md shows forged values for ${row.tampered.join(', ')}`);
  return parts.length > 0 ? parts.join(' · ') : null;
}
