import type { FeedSnapshot, TaskRow } from '@orange/dashboard/fleet';
import { compareRows, workspaceNumber } from '@orange/dashboard/fleet';
import type { BoardRow, BoardSnapshot } from './protocol.js';

/** A dashboard row as the page shows it: plain fields, nothing the page must work out again. */
export function boardRow(row: TaskRow, revision: number): BoardRow {
  const { meta } = row;
  return {
    project: meta.project,
    id: meta.id,
    branch: meta.branch,
    summary: meta.summary,
    status: meta.status,
    workflow: meta.workflow,
    harness: meta.harness,
    workspace: workspaceNumber(meta.workspace),
    liveness: row.liveness,
    alive: row.alive,
    expected: row.expected,
    terminal: row.terminal,
    active: row.active,
    waiting: row.waiting,
    attention: meta.attention,
    tampered: row.tampered,
    targets: row.targets,
    forcedTargets: row.forcedTargets,
    cancel: row.cancel?.kind ?? null,
    pr: row.pr ? { url: row.pr.url, number: row.pr.number, state: row.pr.state, checks: row.pr.checks ?? null } : null,
    ahead: row.diff?.ahead ?? null,
    added: row.diff?.added ?? null,
    removed: row.diff?.removed ?? null,
    createdAt: meta.created_at,
    updatedAt: meta.updated_at,
    revision,
  };
}

/** The whole board, in the dashboard's order (active first, most recently updated first). */
export function boardSnapshot(feed: FeedSnapshot, now: number = Date.now()): BoardSnapshot {
  const rows = [...feed.rows.values()].sort(compareRows).map((row) => boardRow(row, feed.revisions.get(row.meta.id) ?? 0));
  return { rows, loaded: feed.loaded, unreadable: feed.unreadable, error: feed.error ?? null, sentAt: now };
}
