import type { BoardRow } from '../../../src/protocol';
import { aheadText, groupByStatus, relativeTime, taskName } from '../board-rows';
import { routeHash } from '../route';
import { inlineText } from '../shown-text';
import { statusColour } from '../status-colour';
import { Changes } from './board-table';
import { LivenessFace, PrBadge, WarningMark } from './row-cells';

export interface BoardColumnsProps {
  readonly rows: readonly BoardRow[];
  readonly now: number;
  readonly showProject: boolean;
}

/** The board grouped by status: one column per status (kanban-like; sections on a phone), its cards sorted as the list. */
export function BoardColumns({ rows, now, showProject }: BoardColumnsProps) {
  return (
    <div class="board-columns" data-testid="board-columns">
      {groupByStatus(rows).map((group) => (
        <section key={group.status} class="column" style={{ '--c': statusColour(group.status) }} data-testid={`group-${group.status}`}>
          <h2 class="column-head">
            <span class="column-dot" aria-hidden="true" />
            <span class="column-name">{inlineText(group.status)}</span>
            <span class="column-count">{group.rows.length}</span>
          </h2>
          <ul class="cards">
            {group.rows.map((row) => (
              <li key={`${row.project}/${row.id}`}>
                <a class={`card${row.terminal ? ' is-terminal' : ''}`} href={routeHash({ page: 'task', project: row.project, id: row.id, tab: null })} data-testid={`row-${row.id}`} data-status={row.status}>
                  <span class="card-top">
                    <LivenessFace row={row} />
                    <span class="branch">{inlineText(taskName(row, showProject))}</span>
                    <WarningMark row={row} testId={`warn-${row.id}`} />
                  </span>
                  {row.summary ? <span class="card-summary">{inlineText(row.summary)}</span> : null}
                  <span class="card-meta">
                    <span class="visually-hidden" data-testid={`status-${row.id}`} data-status={row.status}>
                      {inlineText(row.status)}
                    </span>
                    {row.workspace !== null ? <span class="chip" title="worktree">#{row.workspace}</span> : null}
                    {row.pr ? <PrBadge pr={row.pr} link={false} /> : null}
                    {aheadText(row) ? <span class="chip" title="commits ahead">↑{aheadText(row)}</span> : null}
                    <Changes row={row} />
                    <span class="card-time" title={row.updatedAt}>
                      {relativeTime(row.updatedAt, now)}
                    </span>
                  </span>
                </a>
              </li>
            ))}
          </ul>
        </section>
      ))}
    </div>
  );
}
