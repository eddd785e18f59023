import { useCallback, useEffect, useState } from 'preact/hooks';
import type { SessionInfo } from '../../src/protocol';
import { getJson } from './api';
import { Board, type BoardOptions } from './components/board';
import { CreateForm } from './components/create-form';
import { StatusLine, type StatusMessage } from './components/status-line';
import { TaskPage } from './components/task-page';
import { TopBar } from './components/top-bar';
import { useBoard } from './hooks/use-board';
import { useResource } from './hooks/use-resource';
import { navigate, useRoute } from './hooks/use-route';
import { inlineText } from './shown-text';

const VIEW_KEY = 'orange.board.view';

function savedView(): BoardOptions['view'] {
  try {
    return localStorage.getItem(VIEW_KEY) === 'status' ? 'status' : 'list';
  } catch {
    return 'list';
  }
}

/** The page: the board stream and the session are read here once; the route picks the board or a task. */
export function App() {
  const route = useRoute();
  const { board, connection } = useBoard();
  const session = useResource<SessionInfo>((signal) => getJson<SessionInfo>('/api/session', signal), []);
  const [options, setOptions] = useState<BoardOptions>(() => ({ view: savedView(), filter: 'all', search: '' }));
  const [creating, setCreating] = useState(false);
  const [message, setMessage] = useState<StatusMessage | null>(null);

  const changeOptions = useCallback((next: BoardOptions) => {
    setOptions(next);
    try {
      localStorage.setItem(VIEW_KEY, next.view);
    } catch {
      // Storage refused (a private window): the view is kept for this visit only.
    }
  }, []);
  const openCreate = useCallback(() => setCreating(true), []);
  const closeCreate = useCallback(() => setCreating(false), []);

  const info = session.value;
  useEffect(() => {
    const scope = info ? (info.project === null ? 'all projects' : inlineText(info.project)) : '';
    const task = route.page === 'task' ? board?.rows.find((r) => r.id === route.id && r.project === route.project) : undefined;
    document.title = task ? `${inlineText(task.branch)} · Orange` : `Orange${scope ? ` · ${scope}` : ''}`;
  }, [info, route, board]);

  return (
    <div class="app">
      <TopBar session={info} board={board} connection={connection} onCreate={openCreate} />
      {session.state === 'failed' ? (
        <p class="banner banner-error" data-testid="session-error">
          {inlineText(session.error)}
        </p>
      ) : null}
      <main class="main">
        {route.page === 'task' ? (
          <TaskPage key={`${route.project}/${route.id}`} project={route.project} id={route.id} tab={route.tab} board={board} showProject={info?.project === null} onMessage={setMessage} />
        ) : (
          <Board board={board} options={options} onOptions={changeOptions} showProject={info?.project === null} onCreate={openCreate} />
        )}
      </main>
      <footer class="footer">
        <span>Orange {info ? inlineText(info.version) : ''}</span>
      </footer>
      <StatusLine message={message} onDismiss={() => setMessage(null)} />
      {creating && info ? (
        <CreateForm
          session={info}
          onClose={closeCreate}
          onCreated={(result) => {
            setCreating(false);
            setMessage({ kind: 'ok', text: result.message });
            navigate({ page: 'task', project: result.project, id: result.id, tab: null });
          }}
        />
      ) : null}
    </div>
  );
}
