import type { BoardRow } from '../../../src/protocol';
import { aheadText, changesText, relativeTime, taskName } from '../board-rows';
import { navigate } from '../hooks/use-route';
import { routeHash } from '../route';
import { inlineText } from '../shown-text';
import { LivenessFace, PrBadge, StatusBadge, WarningMark } from './row-cells';

export interface BoardTableProps {
  readonly rows: readonly BoardRow[];
  readonly now: number;
  /** `project/branch` in the TASK column (the page shows every project). */
  readonly showProject: boolean;
}

/**
 * The plain list: the terminal dashboard's columns, one row a task (a card on a phone). A row
 * opens its task page.
 */
export function BoardTable({ rows, now, showProject }: BoardTableProps) {
  return (
    <table class="board-table" data-testid="board-table">
      <thead>
        <tr>
          <th class="c-face" aria-label="agent" />
          <th class="c-ws" title="worktree">#</th>
          <th class="c-task">Task</th>
          <th class="c-summary">Summary</th>
          <th class="c-status">Status</th>
          <th class="c-pr">PR</th>
          <th class="c-ahead num">Ahead</th>
          <th class="c-changes num">Changes</th>
          <th class="c-activity">Activity</th>
          <th class="c-warn" aria-label="attention" />
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => {
          const route = { page: 'task', project: row.project, id: row.id, tab: null } as const;
          return (
            <tr
              key={`${row.project}/${row.id}`}
              class={`board-row${row.terminal ? ' is-terminal' : ''}`}
              data-testid={`row-${row.id}`}
              data-status={row.status}
              onClick={(event) => {
                // A click on the link itself (or a selection of text) is the browser's.
                if ((event.target as HTMLElement).closest('a') || getSelection()?.toString()) return;
                navigate(route);
              }}
            >
              <td class="c-face">
                <LivenessFace row={row} />
              </td>
              <td class="c-ws" title="worktree">
                {row.workspace === null ? '' : String(row.workspace)}
              </td>
              <td class="c-task">
                <a href={routeHash(route)} class="branch">
                  {inlineText(taskName(row, showProject))}
                </a>
              </td>
              <td class="c-summary" title={inlineText(row.summary)}>
                {inlineText(row.summary)}
              </td>
              <td class="c-status">
                <StatusBadge status={row.status} testId={`status-${row.id}`} />
              </td>
              <td class="c-pr">
                <PrBadge pr={row.pr} />
              </td>
              <td class="c-ahead num">{aheadText(row)}</td>
              <td class="c-changes num">
                <Changes row={row} />
              </td>
              <td class="c-activity" title={row.updatedAt}>
                {relativeTime(row.updatedAt, now)}
              </td>
              <td class="c-warn">
                <WarningMark row={row} testId={`warn-${row.id}`} />
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** `+a −r`, added green and removed red. */
export function Changes({ row }: { readonly row: Pick<BoardRow, 'added' | 'removed'> }) {
  if (!changesText(row)) return null;
  return (
    <span class="changes">
      <span class="add">+{row.added ?? 0}</span> <span class="del">−{row.removed ?? 0}</span>
    </span>
  );
}
