import type { BoardSnapshot, SessionInfo } from '../../../src/protocol';
import type { Connection } from '../hooks/use-board';
import { inlineText } from '../shown-text';

export interface TopBarProps {
  readonly session: SessionInfo | null;
  readonly board: BoardSnapshot | null;
  readonly connection: Connection;
  readonly onCreate: () => void;
}

const CONNECTION_LABELS: Readonly<Record<Connection, string>> = { connecting: 'connecting…', live: 'live', reconnecting: 'reconnecting…' };

/** The bar on every page: the scope, how many tasks, whether the board is live, and New task. */
export function TopBar({ session, board, connection, onCreate }: TopBarProps) {
  const count = board?.rows.length ?? 0;
  const active = board?.rows.filter((r) => !r.terminal).length ?? 0;
  return (
    <header class="topbar">
      <a class="brand" href="#/" aria-label="Orange board">
        <span class="brand-mark" aria-hidden="true" />
        <span class="brand-name">Orange</span>
      </a>
      <span class="scope" title="scope">
        {session ? (session.project === null ? 'all projects' : inlineText(session.project)) : ''}
      </span>
      <span class="spacer" />
      <span class="task-count" data-testid="task-count" title={`${active} active`}>
        {board?.loaded ? (
          <>
            <strong>{count}</strong> {count === 1 ? 'task' : 'tasks'}
            <span class="task-count-active"> · {active} active</span>
          </>
        ) : (
          '…'
        )}
      </span>
      <span class={`connection connection-${connection}`} data-testid="connection" data-state={connection} role="status">
        <span class="connection-dot" aria-hidden="true" />
        {CONNECTION_LABELS[connection]}
      </span>
      <button type="button" class="btn primary" data-testid="new-task" onClick={onCreate} disabled={!session}>
        <span aria-hidden="true">+</span> New task
      </button>
    </header>
  );
}
