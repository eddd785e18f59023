import type { BoardSnapshot } from '../../../src/protocol';
import { FILTERS, visibleRows, type RowFilter } from '../board-rows';
import { useNow } from '../hooks/use-now';
import { inlineText } from '../shown-text';
import { BoardColumns } from './board-columns';
import { BoardTable } from './board-table';

/** How the board is drawn: grouped by status (kanban-like), or the plain list. */
export type BoardView = 'status' | 'list';

export interface BoardOptions {
  readonly view: BoardView;
  readonly filter: RowFilter;
  readonly search: string;
}

export interface BoardProps {
  readonly board: BoardSnapshot | null;
  readonly options: BoardOptions;
  readonly onOptions: (options: BoardOptions) => void;
  readonly showProject: boolean;
  readonly onCreate: () => void;
}

const FILTER_LABELS: Readonly<Record<RowFilter, string>> = { all: 'All', active: 'Active', done: 'Done' };

/** The board page: its view, filter and search, then the tasks. */
export function Board({ board, options, onOptions, showProject, onCreate }: BoardProps) {
  const now = useNow(1000);
  const rows = board ? visibleRows(board.rows, options.filter, options.search) : [];
  const total = board?.rows.length ?? 0;
  return (
    <section class="board" data-testid="board">
      <div class="toolbar">
        <div class="segmented" role="group" aria-label="view">
          <button type="button" class={options.view === 'list' ? 'on' : ''} aria-pressed={options.view === 'list'} data-testid="view-list" onClick={() => onOptions({ ...options, view: 'list' })}>
            ☰ List
          </button>
          <button type="button" class={options.view === 'status' ? 'on' : ''} aria-pressed={options.view === 'status'} data-testid="view-status" onClick={() => onOptions({ ...options, view: 'status' })}>
            ▥ By status
          </button>
        </div>
        <div class="segmented" role="group" aria-label="filter">
          {FILTERS.map((filter) => (
            <button key={filter} type="button" class={options.filter === filter ? 'on' : ''} aria-pressed={options.filter === filter} data-testid={`filter-${filter}`} onClick={() => onOptions({ ...options, filter })}>
              {FILTER_LABELS[filter]}
            </button>
          ))}
        </div>
        <input
          class="search"
          type="search"
          placeholder="Search branch or summary"
          aria-label="search"
          value={options.search}
          data-testid="search"
          onInput={(e) => onOptions({ ...options, search: (e.target as HTMLInputElement).value })}
          onKeyDown={(e) => {
            if (e.key === 'Escape') onOptions({ ...options, search: '' });
          }}
        />
        <span class="shown-count" data-testid="shown-count">
          {rows.length === total ? `${total} shown` : `${rows.length} of ${total} shown`}
        </span>
      </div>
      {board?.error ? (
        <p class="banner banner-error" data-testid="board-error">
          {inlineText(board.error)}
        </p>
      ) : null}
      {board && board.unreadable > 0 ? (
        <p class="banner banner-warn" data-testid="board-unreadable">
          {board.unreadable === 1 ? '1 task could not be read' : `${board.unreadable} tasks could not be read`}
        </p>
      ) : null}
      {!board || !board.loaded ? (
        <p class="empty">Loading tasks…</p>
      ) : rows.length === 0 ? (
        <div class="empty" data-testid="board-empty">
          {total === 0 ? (
            <>
              <p>No tasks yet.</p>
              <button type="button" class="btn primary" onClick={onCreate}>
                Create the first task
              </button>
            </>
          ) : (
            <p>No task matches.</p>
          )}
        </div>
      ) : options.view === 'status' ? (
        <BoardColumns rows={rows} now={now} showProject={showProject} />
      ) : (
        <BoardTable rows={rows} now={now} showProject={showProject} />
      )}
    </section>
  );
}
