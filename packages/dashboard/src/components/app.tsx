import { isOrangeError, type AgentRole, type AttachInfo, type PullRequestReading, type TaskRef } from '@orange/core';
import { Box, Text } from 'ink';
import { useKeys } from '../hooks/use-keys.js';
import { useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import { useHistory, usePreview, useQuestions } from '../hooks/use-task-details.js';
import { useTasks } from '../hooks/use-tasks.js';
import { useTerminalSize } from '../hooks/use-terminal-size.js';
import { answerAction } from '../clarification.js';
import { footerKeys, tableAction } from '../key-map.js';
import type { CreateRequest, DashboardActions } from '../task-actions.js';
import type { TaskSource } from '../task-feed.js';
import { FILTERS, pullRequestView, visibleRows, type RowFilter, type TaskRow } from '../task-row.js';
import { shown } from '../shown-text.js';
import { editText, submittedLine } from '../text-edit.js';
import { Confirm } from './confirm.js';
import { CreateForm } from './create-form.js';
import { DiffView } from './diff-view.js';
import { DetailPane } from './detail-pane.js';
import { Footer } from './footer.js';
import { Header } from './header.js';
import { HelpScreen } from './help-screen.js';
import { LinePrompt } from './line-prompt.js';
import { MESSAGE_SHOWN_MS, StatusBar, statusBarLines, type StatusMessage } from './status-bar.js';
import { TaskFileView } from './task-file-view.js';
import { TableHeader, tableLayout, TaskTable } from './task-table.js';

/** What the dashboard remembers across an attach (it is unmounted while the terminal is the agent's). */
export interface DashboardView {
  readonly selectedId: string | null;
  readonly filter: RowFilter;
  readonly search: string;
  readonly role: AgentRole;
  readonly message: StatusMessage | null;
}

/** A value that changes over time, read with `useSyncExternalStore` (e.g. who runs the monitor). */
export interface LiveValue<T> {
  get(): T;
  subscribe(listener: () => void): () => void;
}

export interface AppProps {
  readonly source: TaskSource;
  readonly actions: DashboardActions;
  /** The scope as shown in the header: a project's name, or "all projects". */
  readonly scope: string;
  /** The project the create form starts on. */
  readonly project: string | null;
  readonly showProject: boolean;
  readonly monitor: LiveValue<string>;
  /** How Enter attaches from here and the keys back (null until the runtime said, or when it cannot). */
  readonly attach: LiveValue<AttachInfo | null>;
  readonly colour: boolean;
  readonly initial?: Partial<DashboardView>;
  readonly onAttach: (row: TaskRow, role: AgentRole, view: DashboardView) => void;
  readonly onQuit: () => void;
  /** Puts text on the clipboard (OSC 52). */
  readonly onCopy: (text: string) => void;
  /** Opens a URL in the browser; returns the sentence for the status bar (the URL itself when it cannot). */
  readonly onOpenUrl: (url: string) => Promise<string>;
  /** Re-reads one task now, after an action of this dashboard. */
  readonly onChanged?: (ref: TaskRef) => void;
  /** Shows a pull request as it was just read (R) or opened (p), without asking the SCM again. */
  readonly onPullRequestRead?: (read: PullRequestReading) => void;
  readonly now?: () => number;
}

type Mode =
  | { readonly kind: 'table' }
  | { readonly kind: 'search' }
  | { readonly kind: 'create'; readonly projects: string[]; readonly harnesses: string[]; readonly initial?: CreateRequest }
  | { readonly kind: 'confirm'; readonly question: string; readonly run: () => Promise<string>; readonly ref: TaskRef }
  | { readonly kind: 'prompt'; readonly label: string; readonly busy: string; readonly submit: (text: string) => Promise<string>; readonly ref: TaskRef }
  | { readonly kind: 'help' }
  | { readonly kind: 'file'; readonly title: string; readonly text: string }
  | { readonly kind: 'diff'; readonly title: string; readonly text: string };

/** Statuses in which a task waits for a human. */
const NEEDS_YOU = new Set(['reviewing', 'stuck', 'clarification', 'awaiting_clarification']);
const FIXED_LINES = 6; // header, column heads, two rules, footer, status bar
/** How long a task just created keeps the selection while the feed has not shown it yet. */
const AWAIT_CREATED_MS = 3000;

/** The dashboard: header, task table, detail pane, footer and status bar; the key map drives the actions. */
export function App(props: AppProps) {
  const { source, actions, colour } = props;
  const snapshot = useTasks(source);
  const monitor = useSyncExternalStore(props.monitor.subscribe, props.monitor.get);
  const attach = useSyncExternalStore(props.attach.subscribe, props.attach.get);
  const { columns, rows: height } = useTerminalSize();
  const [mode, setMode] = useState<Mode>({ kind: 'table' });
  const [filter, setFilter] = useState<RowFilter>(props.initial?.filter ?? 'all');
  const [search, setSearch] = useState(props.initial?.search ?? '');
  const [selectedId, setSelectedId] = useState<string | null>(props.initial?.selectedId ?? null);
  const [role, setRole] = useState<AgentRole>(props.initial?.role ?? 'worker');
  const [message, setMessage] = useState<StatusMessage | null>(props.initial?.message ?? null);
  const [now, setNow] = useState(() => (props.now ?? Date.now)());
  const top = useRef(0);
  // A task just created, selected before the feed has shown it.
  const awaited = useRef<string | null>(null);
  // The selected row as the last render or key left it: moves read before the next render start
  // here, and a task that leaves the view hands the selection to the row now in its place.
  const cursor = useRef(0);

  useEffect(() => {
    const timer = setInterval(() => setNow((props.now ?? Date.now)()), 1000);
    return () => clearInterval(timer);
  }, [props.now]);

  const shownRows = useMemo(() => visibleRows(snapshot.rows.values(), filter, search), [snapshot, filter, search]);
  const foundAt = selectedId === null ? -1 : shownRows.findIndex((r) => r.meta.id === selectedId);
  if (foundAt !== -1 && awaited.current === selectedId) awaited.current = null;
  const index = foundAt === -1 ? Math.min(cursor.current, Math.max(0, shownRows.length - 1)) : foundAt;
  cursor.current = index;
  const selected: TaskRow | undefined = shownRows[index];
  const shownId = selected?.meta.id ?? null;
  // The selection is a task, never a row number: the first row on open, the neighbour of a task
  // that left the view — pinned by id, so a task that changes or re-sorts never takes it over.
  useEffect(() => {
    if (shownId !== null && shownId !== selectedId && awaited.current === null) setSelectedId(shownId);
  }, [shownId, selectedId]);
  const revision = selected ? (snapshot.revisions.get(selected.meta.id) ?? 0) : 0;
  const preview = usePreview(actions, selected, role);
  const history = useHistory(actions, selected, revision);
  const questions = useQuestions(actions, selected, revision);

  // A message leaves the status bar once it has been there long enough to read.
  useEffect(() => {
    const ms = message ? MESSAGE_SHOWN_MS[message.kind] : null;
    if (ms === null) return undefined;
    const timer = setTimeout(() => setMessage((current) => (current === message ? null : current)), ms);
    return () => clearTimeout(timer);
  }, [message]);
  const statusLines = mode.kind === 'table' ? statusBarLines(message, columns) : 1;

  const detailHeight = height >= 20 ? Math.max(6, Math.floor((height - FIXED_LINES) * 0.45)) : 0;
  // One line less than the terminal: ink redraws the whole screen when its output fills it.
  const tableHeight = Math.max(1, height - 1 - FIXED_LINES - (statusLines - 1) - detailHeight + (detailHeight === 0 ? 1 : 0));
  // Columns sized to the rows shown (and the task just selected): a wide screen gets a SUMMARY column.
  const layout = tableLayout(columns, shownRows.slice(top.current, top.current + tableHeight), props.showProject);
  // Without a SUMMARY column the selected row takes a second line for its summary.
  const rowsOnScreen = Math.max(1, tableHeight - (selected?.meta.summary && layout.summaryW === 0 ? 1 : 0));
  if (index < top.current) top.current = index;
  if (index >= top.current + rowsOnScreen) top.current = index - rowsOnScreen + 1;
  top.current = Math.max(0, Math.min(top.current, Math.max(0, shownRows.length - rowsOnScreen)));
  const windowRows = shownRows.slice(top.current, top.current + rowsOnScreen);

  const view = (): DashboardView => ({ selectedId: selected?.meta.id ?? null, filter, search, role, message });
  const clampRow = (at: number) => Math.max(0, Math.min(shownRows.length - 1, at));
  const select = (at: number) => {
    const to = clampRow(at);
    const row = shownRows[to];
    awaited.current = null;
    // Moves made before the next render (keys read one by one, faster than it) start from here.
    cursor.current = to;
    if (row) setSelectedId(row.meta.id);
  };

  /** Runs an action; its sentence, or its refusal's, goes to the status bar. Never throws. */
  const run = async (label: string, ref: TaskRef | null, action: () => Promise<string>) => {
    setMessage({ text: `${label}…`, kind: 'busy' });
    try {
      setMessage({ text: await action(), kind: 'info' });
    } catch (error) {
      setMessage({ text: describe(error), kind: 'error' });
    } finally {
      if (ref) props.onChanged?.(ref);
    }
  };

  /** Asks `question` (written from what the check found) only if `check` passes; `y` runs `action`. */
  const confirmThen = async <T,>(check: () => Promise<T>, question: string | ((checked: T) => string), ref: TaskRef, action: (checked: T) => Promise<string>) => {
    try {
      const checked = await check();
      setMode({ kind: 'confirm', question: typeof question === 'string' ? question : question(checked), run: () => action(checked), ref });
    } catch (error) {
      setMessage({ text: describe(error), kind: 'error' });
    }
  };

  useKeys(
    (input, key) => {
      if (mode.kind === 'search') {
        // A search pasted with its Enter (one read) is kept, as typed then Enter.
        const line = submittedLine(search, input, key);
        if (line !== null) {
          setSearch(line);
          setMode({ kind: 'table' });
        } else if (key.return) setMode({ kind: 'table' });
        else if (key.escape) {
          setSearch('');
          setMode({ kind: 'table' });
        } else setSearch(editText(search, input, key));
        return;
      }
      // Keys typed faster than the screen reads them arrive as one input ("kkjjj"): each move is
      // taken in turn, stopping at either end as single presses would; anything else is taken one
      // key at a time (the first).
      if (input.length > 1 && /^[jk]+$/.test(input)) return select([...input].reduce((at, c) => clampRow(at + (c === 'j' ? 1 : -1)), cursor.current));
      const action = tableAction(input.length > 1 && !key.ctrl && !key.meta ? (input[0] ?? '') : input, key, selected);
      if (action === null) return;
      const ref = selected ? { project: selected.meta.project, id: selected.meta.id } : null;
      const label = selected ? `${selected.meta.id} (${selected.meta.branch})` : '';
      switch (action) {
        case 'down':
          return select(cursor.current + 1);
        case 'up':
          return select(cursor.current - 1);
        case 'page-down':
          return select(cursor.current + rowsOnScreen);
        case 'page-up':
          return select(cursor.current - rowsOnScreen);
        case 'quit':
          return props.onQuit();
        case 'help':
          return setMode({ kind: 'help' });
        case 'filter':
          return setFilter(FILTERS[(FILTERS.indexOf(filter) + 1) % FILTERS.length] ?? 'all');
        case 'search':
          return setMode({ kind: 'search' });
        case 'switch-pane':
          return setRole(role === 'worker' ? 'reviewer' : 'worker');
        case 'create':
          void actions
            .choices()
            .then(({ projects, harnesses }) => {
              if (projects.length === 0) setMessage({ text: 'no registered project to create a task in (orange project add)', kind: 'error' });
              else setMode({ kind: 'create', projects, harnesses });
            })
            .catch((error: unknown) => setMessage({ text: describe(error), kind: 'error' }));
          return;
      }
      if (!selected || !ref) return;
      switch (action) {
        case 'attach':
          return props.onAttach(selected, selected.alive.includes(role) ? role : (selected.alive[0] ?? 'worker'), view());
        case 'spawn':
          return void run(`starting ${ref.id}`, ref, () => actions.spawn(ref));
        case 'respawn':
          return void run(`restarting the agent of ${ref.id}`, ref, () => actions.respawn(ref));
        case 'request-changes':
          if (selected.meta.status !== 'reviewing') {
            setMessage({ text: `task ${ref.id} is ${selected.meta.status}; changes are requested on a task in reviewing`, kind: 'error' });
            return;
          }
          return setMode({ kind: 'prompt', label: 'Changes to ask for (Enter sends, empty: read ## Review; Esc cancels):', busy: 'requesting changes', submit: (text) => actions.requestChanges(ref, text), ref });
        case 'answer': {
          const how = answerAction(selected);
          // The worker that asked waits in its session: the answer is given there.
          if (how === 'attach') return props.onAttach(selected, 'worker', view());
          if (how === 'clarify') return setMode({ kind: 'prompt', label: 'Answer to ## Questions (Enter sends; Esc cancels):', busy: `answering ${ref.id}`, submit: (text) => actions.clarify(ref, text), ref });
          const why =
            selected.meta.status === 'clarification'
              ? `task ${ref.id} waits for an answer in its worker's session, but the worker is not running: Enter restarts it, then a attaches`
              : `task ${ref.id} is ${selected.meta.status}; a answers the questions of a task awaiting clarification`;
          setMessage({ text: why, kind: 'error' });
          return;
        }
        case 'merge':
          return void confirmThen(
            () => actions.checkMerge(ref),
            ({ forced }) =>
              forced
                ? `Force-merge task ${label} from ${selected.meta.status}, unreviewed? Its agents stop.`
                : `Merge task ${label} into the default branch?`,
            ref,
            ({ forced }) => actions.merge(ref, forced),
          );
        case 'cancel':
          return void confirmThen(() => actions.checkCancel(ref), ({ question }) => question, ref, () => actions.cancel(ref));
        case 'delete':
          return void confirmThen(() => actions.checkDelete(ref), `Delete task ${label} and its history?`, ref, () => actions.delete(ref));
        case 'pull-request':
          return void run(selected.meta.pr_url ? 'opening the pull request' : `creating a pull request for ${ref.id}`, ref, async () => {
            const { url, created } = await actions.pullRequest(ref);
            // Just opened: its row says so (its checks are for the next pass to read).
            if (created) props.onPullRequestRead?.({ task: ref.id, url, state: 'open', checks: null });
            return created ? `pull request created: ${url} (p again opens it)` : props.onOpenUrl(url);
          });
        case 'refresh-pr':
          if (!selected.meta.pr_url) {
            setMessage({ text: `task ${ref.id} has no pull request (p opens one)`, kind: 'error' });
            return;
          }
          // The sync's own read is shown; `run` re-reads the task once it is done.
          return void run('syncing the pull request', ref, async () => {
            const { applied, read } = await actions.syncPullRequest(ref);
            if (read) props.onPullRequestRead?.(read);
            const pr = read ? pullRequestView(read) : null;
            return applied ?? `pull request of ${ref.id}: ${pr?.state ? `${pr.state}${pr.checks ? ` ${pr.checks}` : ''}` : 'state unknown'}`;
          });
        case 'copy-id':
          props.onCopy(ref.id);
          setMessage({ text: `copied ${ref.id}`, kind: 'info' });
          return;
        case 'diff':
          void actions
            .diff(selected.meta)
            .then((text) =>
              text === null
                ? setMessage({ text: `task ${ref.id} has no worktree, so there is no diff to show`, kind: 'error' })
                : text.trim() === ''
                  ? setMessage({ text: `task ${ref.id} (${selected.meta.branch}) has no changes against its base yet`, kind: 'info' })
                  : setMode({ kind: 'diff', title: `diff of ${ref.id} (${selected.meta.branch})`, text }),
            )
            .catch((error: unknown) => setMessage({ text: describe(error), kind: 'error' }));
          return;
        case 'review':
        case 'view-file':
          void actions
            .taskFile(ref)
            .then((text) => setMode({ kind: 'file', title: `TASK.md of ${ref.id} (${selected.meta.branch})`, text }))
            .catch((error: unknown) => setMessage({ text: describe(error), kind: 'error' }));
          return;
      }
    },
    mode.kind === 'table' || mode.kind === 'search',
  );

  const agents = [...snapshot.rows.values()].reduce((n, r) => n + r.alive.length, 0);
  const needsYou = [...snapshot.rows.values()].filter((r) => !r.terminal && (NEEDS_YOU.has(r.meta.status) || r.meta.attention || r.liveness === 'dead')).length;
  const rule = '─'.repeat(Math.max(0, columns));

  if (mode.kind === 'help') return <HelpScreen monitor={monitor} attach={attach} width={columns} height={height - 1} onClose={() => setMode({ kind: 'table' })} />;
  if (mode.kind === 'file') return <TaskFileView title={mode.title} text={mode.text} height={height - 1} onClose={() => setMode({ kind: 'table' })} />;
  if (mode.kind === 'diff') return <DiffView title={mode.title} text={mode.text} height={height - 1} width={columns} colour={colour} closeKey="D" onClose={() => setMode({ kind: 'table' })} />;

  const bottom = (() => {
    switch (mode.kind) {
      case 'confirm':
        return (
          <Confirm
            question={mode.question}
            colour={colour}
            onAnswer={(yes) => {
              setMode({ kind: 'table' });
              if (yes) void run(mode.question.replace(/\?.*$/s, ''), mode.ref, mode.run);
              else setMessage({ text: 'not confirmed; nothing was changed', kind: 'info' });
            }}
          />
        );
      case 'prompt':
        return (
          <LinePrompt
            label={mode.label}
            onCancel={() => setMode({ kind: 'table' })}
            onSubmit={(text) => {
              setMode({ kind: 'table' });
              void run(mode.busy, mode.ref, () => mode.submit(text));
            }}
          />
        );
      case 'search':
        return <Text wrap="truncate">{`/${shown(search, Math.max(1, columns - 24))}▏ (Enter keep, Esc clear)`}</Text>;
      default:
        return <StatusBar message={message} width={columns} colour={colour} />;
    }
  })();

  return (
    <Box flexDirection="column" width={columns}>
      <Header scope={props.scope} filter={filter} search={search} agents={agents} needsYou={needsYou} monitor={monitor} width={columns} colour={colour} />
      <TableHeader width={columns} layout={layout} />
      {mode.kind === 'create' ? (
        <CreateForm
          projects={mode.projects}
          project={props.project}
          harnesses={mode.harnesses}
          colour={colour}
          onCancel={() => setMode({ kind: 'table' })}
          initial={mode.initial}
          onSubmit={(request: CreateRequest) => {
            const form = mode;
            setMode({ kind: 'table' });
            setMessage({ text: 'creating the task…', kind: 'busy' });
            actions.create(request).then(
              ({ message: text, ref }) => {
                awaited.current = ref.id;
                setSelectedId(ref.id);
                // Not in this view (a filter hides it): after a while the selection is a shown task again.
                setTimeout(() => {
                  if (awaited.current === ref.id) {
                    awaited.current = null;
                    setNow((props.now ?? Date.now)());
                  }
                }, AWAIT_CREATED_MS);
                setMessage({ text, kind: 'info' });
                props.onChanged?.(ref);
              },
              // A refusal (a branch that exists already) reopens the form with what was typed.
              (error: unknown) => {
                setMode({ ...form, initial: request });
                setMessage({ text: describe(error), kind: 'error' });
              },
            );
          }}
        />
      ) : (
        <Box flexDirection="column" height={tableHeight}>
          {!snapshot.loaded ? (
            <Text dimColor>reading tasks…</Text>
          ) : snapshot.error ? (
            <Text color={colour ? 'red' : undefined} wrap="truncate">{shown(`the tasks could not be listed: ${snapshot.error}`, Math.max(1, columns))}</Text>
          ) : shownRows.length === 0 ? (
            <Text dimColor>{snapshot.rows.size === 0 ? 'no tasks yet — press c to create one' : 'no task matches (f: filter, /: search)'}</Text>
          ) : (
            <TaskTable rows={windowRows} selectedId={selected?.meta.id ?? null} width={columns} now={now} colour={colour} showProject={props.showProject} layout={layout} />
          )}
        </Box>
      )}
      {detailHeight > 0 ? <Text dimColor>{rule}</Text> : null}
      {detailHeight > 0 ? (
        <Box height={detailHeight}>
          <DetailPane row={selected} role={role} preview={preview} questions={questions} history={history} diff={selected?.diff ?? null} height={detailHeight} width={columns} colour={colour} />
        </Box>
      ) : null}
      <Text dimColor>{rule}</Text>
      <Footer keys={footerKeys(selected, attach)} width={columns} />
      {bottom}
    </Box>
  );
}

function describe(error: unknown): string {
  if (isOrangeError(error)) return error.message;
  return `unexpected error: ${error instanceof Error ? error.message : String(error)}`;
}
