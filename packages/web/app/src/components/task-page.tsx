import type { ComponentType } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { BoardRow, BoardSnapshot, Role, TaskDetail } from '../../../src/protocol';
import { getJson } from '../api';
import { aheadText, relativeTime, taskName, warningText } from '../board-rows';
import { useNow } from '../hooks/use-now';
import { useResource } from '../hooks/use-resource';
import { navigate } from '../hooks/use-route';
import { questionsIn } from '../markdown';
import { taskPath } from '../route';
import { inlineText, valueText } from '../shown-text';
import { awaitsAnswer, isPipeline, type PageAction } from '../task-actions';
import { Changes } from './board-table';
import { DiffView } from './diff-view';
import { HistoryView } from './history-view';
import { MarkdownView } from './markdown-view';
import { PrView } from './pr-view';
import { LivenessFace, PrBadge, StatusBadge } from './row-cells';
import type { StatusMessage } from './status-line';
import { TaskActions } from './task-actions-bar';
import { TranscriptView } from './transcript-view';

/** The task page's tabs, as the hash names them (`#/task/<project>/<id>/<tab>`). */
const TABS = ['worker', 'reviewer', 'task', 'history', 'diff', 'pr', 'transcript'] as const;
type Tab = (typeof TABS)[number];

const TAB_LABELS: Readonly<Record<Tab, string>> = { worker: 'Worker', reviewer: 'Reviewer', task: 'TASK.md', history: 'History', diff: 'Diff', pr: 'PR', transcript: 'Transcript' };

export interface TaskPageProps {
  readonly project: string;
  readonly id: string;
  readonly tab: string | null;
  readonly board: BoardSnapshot | null;
  readonly showProject: boolean;
  readonly onMessage: (message: StatusMessage | null) => void;
}

/** The tab a task opens on: the live agent's terminal, else TASK.md. */
function firstTab(row: BoardRow | null): Tab {
  if (row?.alive.includes('worker')) return 'worker';
  if (row?.alive.includes('reviewer')) return 'reviewer';
  return 'task';
}

/**
 * One task: its header, every action, and its tabs (the agents' live terminals, TASK.md, the
 * history, the diff, the pull request, the transcripts). The row comes live from the board
 * stream; the rest is read again each time the row's revision moves.
 */
export function TaskPage({ project, id, tab, board, showProject, onMessage }: TaskPageProps) {
  const boardRow = board?.rows.find((r) => r.id === id && r.project === project) ?? null;
  const revision = boardRow?.revision ?? -1;
  const [again, setAgain] = useState(0);
  const detail = useResource<TaskDetail>((signal) => getJson<TaskDetail>(taskPath({ project, id }), signal), [project, id, revision, again]);
  const row = boardRow ?? detail.value?.row ?? null;
  const [opened, setOpened] = useState<Tab | null>(null);
  useEffect(() => {
    if (row && opened === null) setOpened(firstTab(row));
  }, [row, opened]);
  const current: Tab = (TABS as readonly string[]).includes(tab ?? '') ? (tab as Tab) : (opened ?? firstTab(row));

  const body = detail.value?.body ?? '';
  const questions = useMemo(() => questionsIn(body), [body]);
  const gone = board?.loaded && !boardRow && (detail.state === 'failed' || detail.value?.row === null);

  if (!row) {
    return (
      <section class="task-page" data-testid="task-page">
        <BackLink />
        {gone || detail.state === 'failed' ? (
          <div class="empty" data-testid="task-missing">
            <p>
              No task <code>{inlineText(id)}</code> in {inlineText(project)}.
            </p>
            {detail.state === 'failed' ? <p class="muted">{inlineText(detail.error)}</p> : null}
          </div>
        ) : (
          <p class="empty">Reading the task…</p>
        )}
      </section>
    );
  }

  const pipeline = isPipeline(detail.value?.meta ?? {}, row);
  const onDone = (action: PageAction) => {
    if (action === 'delete') navigate({ page: 'board' });
    else setAgain((n) => n + 1);
  };

  return (
    <section class="task-page" data-testid="task-page" data-status={row.status}>
      <BackLink />
      <TaskHeader row={row} showProject={showProject} />
      {gone ? <p class="banner banner-warn">This task is no longer on the board (deleted?).</p> : null}
      <TaskWarnings row={row} />
      {detail.state === 'failed' ? <p class="banner banner-error">{inlineText(detail.error)}</p> : null}
      {awaitsAnswer(row) && questions && row.status === 'clarification' ? (
        <div class="questions-panel" data-testid="questions-panel">
          <h3>Questions</h3>
          <MarkdownView source={questions} testId="questions" />
          <p class="muted">The worker waits in its session for your answer: open the Worker tab, press Type and answer there.</p>
        </div>
      ) : null}
      <TaskActions key={`${row.project}/${row.id}`} row={row} pipeline={pipeline} questions={questions} onMessage={onMessage} onDone={onDone} />
      <nav class="tabs" role="tablist" aria-label="task">
        {TABS.map((name) => (
          <button
            key={name}
            type="button"
            role="tab"
            aria-selected={current === name}
            class={`tab${current === name ? ' on' : ''}`}
            data-testid={`tab-${name}`}
            onClick={() => navigate({ page: 'task', project, id, tab: name }, true)}
          >
            {name === 'worker' || name === 'reviewer' ? <AgentDot row={row} role={name} /> : null}
            {TAB_LABELS[name]}
            {name === 'history' && detail.value ? <span class="tab-count">{detail.value.history.length}</span> : null}
            {name === 'transcript' && detail.value ? <span class="tab-count">{detail.value.transcripts.length}</span> : null}
          </button>
        ))}
      </nav>
      <div class="tab-body" role="tabpanel">
        {current === 'worker' || current === 'reviewer' ? (
          <LiveTerminal key={current} project={project} id={id} role={current} />
        ) : current === 'task' ? (
          detail.value ? (
            <>
              {body.trim() ? <MarkdownView source={body} /> : <p class="empty">TASK.md has no body.</p>}
              <Frontmatter meta={detail.value.meta} />
            </>
          ) : (
            <p class="empty">Reading TASK.md…</p>
          )
        ) : current === 'history' ? (
          detail.value ? <HistoryView history={detail.value.history} /> : <p class="empty">Reading the history…</p>
        ) : current === 'diff' ? (
          <DiffView project={project} id={id} revision={revision} />
        ) : current === 'pr' ? (
          <PrView project={project} id={id} revision={revision} />
        ) : detail.value ? (
          <TranscriptView project={project} id={id} transcripts={detail.value.transcripts} />
        ) : (
          <p class="empty">Reading the transcripts…</p>
        )}
      </div>
    </section>
  );
}

function BackLink() {
  return (
    <a class="back" href="#/" data-testid="back">
      ← Board
    </a>
  );
}

/** Branch, status, agent, pull request and summary, then the facts in small print. */
function TaskHeader({ row, showProject }: { readonly row: BoardRow; readonly showProject: boolean }) {
  const now = useNow(1000);
  const facts: Array<[string, string]> = [
    ['project', row.project],
    ['id', row.id],
    ['worktree', row.workspace === null ? '—' : `#${row.workspace}`],
    ['workflow', row.workflow ?? 'default'],
    ['harness', row.harness ?? 'default'],
    ['agents', row.alive.length > 0 ? `${row.alive.join(', ')} alive` : row.expected.length > 0 ? `${row.expected.join(', ')} expected` : 'none'],
    ['ahead', aheadText(row) || '0'],
    ['updated', relativeTime(row.updatedAt, now)],
    ['created', relativeTime(row.createdAt, now)],
  ];
  return (
    <header class="task-head">
      <div class="task-title">
        <span data-testid="task-liveness" data-state={row.liveness}>
          <LivenessFace row={row} />
        </span>
        <h1 class="branch" data-testid="task-branch">
          {inlineText(taskName(row, showProject))}
        </h1>
        <StatusBadge status={row.status} testId="task-status" />
        {row.pr ? <PrBadge pr={row.pr} testId="task-pr" /> : null}
        <Changes row={row} />
      </div>
      {row.summary ? (
        <p class="task-summary" data-testid="task-summary">
          {inlineText(row.summary)}
        </p>
      ) : null}
      <dl class="facts">
        {facts.map(([name, value]) => (
          <div key={name} class="fact">
            <dt>{name}</dt>
            <dd>{inlineText(value)}</dd>
          </div>
        ))}
      </dl>
    </header>
  );
}

/** ⚠ A failed hook, or engine-owned fields TASK.md shows with forged values. */
function TaskWarnings({ row }: { readonly row: BoardRow }) {
  if (!warningText(row)) return null;
  return (
    <div class="banner banner-warn" data-testid="task-warning">
      {row.attention ? <p>⚠ {inlineText(row.attention)}</p> : null}
      {row.tampered.length > 0 ? <p>⚠ TASK.md shows forged values for engine-owned fields: {inlineText(row.tampered.join(', '))}</p> : null}
    </div>
  );
}

function AgentDot({ row, role }: { readonly row: BoardRow; readonly role: Role }) {
  const alive = row.alive.includes(role);
  const expected = row.expected.includes(role);
  const state = alive ? 'alive' : expected ? (row.liveness === 'starting' ? 'starting' : 'dead') : 'none';
  return <span class={`agent-dot face-${state}`} aria-hidden="true" />;
}

/** TASK.md's frontmatter fields, folded away under the body. */
function Frontmatter({ meta }: { readonly meta: TaskDetail['meta'] }) {
  const entries = Object.entries(meta);
  if (entries.length === 0) return null;
  return (
    <details class="frontmatter" data-testid="frontmatter">
      <summary>Frontmatter ({entries.length} fields)</summary>
      <dl>
        {entries.map(([key, value]) => (
          <div key={key} class="fact">
            <dt>{inlineText(key)}</dt>
            <dd>{value === null ? '—' : valueText(value)}</dd>
          </div>
        ))}
      </dl>
    </details>
  );
}

/** The terminal pane, its code (xterm.js, the bulk of the page) loaded the first time one is opened. */
function LiveTerminal(props: { readonly project: string; readonly id: string; readonly role: Role }) {
  const [View, setView] = useState<ComponentType<typeof props> | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  useEffect(() => {
    let cancelled = false;
    import('./terminal-view').then(
      (module) => !cancelled && setView(() => module.TerminalView),
      (error: unknown) => !cancelled && setFailed(String(error)),
    );
    return () => {
      cancelled = true;
    };
  }, []);
  if (failed) return <p class="banner banner-error">{inlineText(failed)}</p>;
  return View ? <View {...props} /> : <p class="empty">Loading the terminal…</p>;
}
