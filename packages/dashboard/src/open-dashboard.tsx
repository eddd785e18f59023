import { onSignals, type AgentRole, type AttachInfo, type Orange } from '@orange/core';
import { render } from 'ink';
import { clipboardSequence } from './clipboard.js';
import { App, type DashboardView } from './components/app.js';
import { SettableValue } from './live-value.js';
import { MonitorDuty } from './monitor-duty.js';
import { openUrl, urlOpener } from './open-url.js';
import { OrangeActions, type WorkflowOperators } from './task-actions.js';
import { TaskFeed } from './task-feed.js';
import type { TaskRow } from './task-row.js';

export interface DashboardOptions {
  readonly orange: Orange;
  /** Only this project's tasks; every project's when undefined (`--all`). */
  readonly project?: string;
  /** Quit after an attach instead of coming back when the user detaches. */
  readonly exitOnAttach?: boolean;
  /** Milliseconds between the monitor's passes (default: the config's pollIntervalMs). */
  readonly pollIntervalMs?: number;
  /** Engine calls of the workflow plugins (the pipeline's `clarifyTask`, for `a`); without them those keys say which command to run. */
  readonly operators?: WorkflowOperators;
  readonly stdin?: NodeJS.ReadStream;
  readonly stdout?: NodeJS.WriteStream;
  readonly env?: NodeJS.ProcessEnv;
}

// The alternate screen: the dashboard draws on its own screen, and quitting gives the terminal
// back exactly as it was (scrollback and all).
const ENTER_SCREEN = '\u001b[?1049h\u001b[H';
const LEAVE_SCREEN = '\u001b[?25h\u001b[?1049l';

type Outcome = { readonly kind: 'quit' } | { readonly kind: 'attach'; readonly row: TaskRow; readonly role: AgentRole; readonly view: DashboardView };

/**
 * Opens the dashboard on the terminal and resolves when the user quits. Enter on a live agent
 * unmounts it, hands the terminal to the agent's tmux session (the runtime slot's `attach`), and
 * draws it again where it was when the user is back: after a detach, or, inside a client of the
 * agents' own tmux server, once that client switched back to the dashboard's session.
 */
export async function openDashboard(options: DashboardOptions): Promise<void> {
  const { orange } = options;
  const stdout = options.stdout ?? process.stdout;
  const stdin = options.stdin ?? process.stdin;
  const env = options.env ?? process.env;
  const colour = !(env.NO_COLOR !== undefined && env.NO_COLOR !== '');
  const feed = new TaskFeed(orange, { project: options.project, pullRequestMs: options.pollIntervalMs });
  // After each turn of the poll the PR column shows what this process's pass read; when another
  // process ran the pass, the feed asks the SCM itself.
  const duty = new MonitorDuty(orange, options.pollIntervalMs, (report) => (report ? feed.knowPullRequests(report.pullRequestsRead) : feed.refreshPullRequests()));
  const actions = new OrangeActions(orange, options.operators);
  const scope = options.project ?? 'all projects';
  // Asked while the first screen is drawn (it costs a tmux call or two): the footer and help show it once known.
  const attachInfo = new SettableValue<AttachInfo | null>(null);
  void orange.maybeSlot('runtime')?.attachInfo?.().then((info) => attachInfo.set(info), () => undefined);
  let view: Partial<DashboardView> = {};
  let quitFromSignal: (() => void) | undefined;
  let quitting = false;
  let attached: AbortController | undefined;
  const onSignal = () => {
    quitting = true;
    quitFromSignal?.();
    attached?.abort();
  };
  // Ctrl-C typed here is a key (raw mode): SIGINT comes from elsewhere (`kill -INT`, a parent's
  // process group), and must leave the terminal as restored as `q` does; Node's default would not.
  const offSignals = onSignals(['SIGINT', 'SIGTERM', 'SIGHUP'], onSignal);
  const started = feed.start();
  // The poll starts once the first screen is drawn: its pass reads every task too, and would
  // otherwise compete with the first listing for the CPU.
  void feed.loaded.then(() => duty.start());
  try {
    for (;;) {
      stdout.write(ENTER_SCREEN);
      const outcome = await new Promise<Outcome>((resolve) => {
        let done = false;
        const finish = (outcome: Outcome) => {
          if (done) return;
          done = true;
          instance.unmount();
          resolve(outcome);
        };
        quitFromSignal = () => finish({ kind: 'quit' });
        const instance = render(
          <App
            source={feed}
            actions={actions}
            scope={scope}
            project={options.project ?? null}
            showProject={options.project === undefined}
            monitor={duty.label}
            attach={attachInfo}
            colour={colour}
            initial={view}
            onAttach={(row, role, current) => finish({ kind: 'attach', row, role, view: current })}
            onQuit={() => finish({ kind: 'quit' })}
            onCopy={(text) => stdout.write(clipboardSequence(text))}
            onOpenUrl={(url) => openUrl(url, urlOpener(process.platform, env))}
            onChanged={(ref) => void feed.refreshTask(ref.project, ref.id).catch(() => undefined)}
            onPullRequestRead={(read) => feed.knowPullRequests([read])}
          />,
          { stdout, stdin, exitOnCtrlC: false, patchConsole: true },
        );
      });
      stdout.write(LEAVE_SCREEN);
      if (outcome.kind === 'quit') return;
      view = outcome.view;
      const resumeReading = stopReading(stdin);
      attached = new AbortController();
      try {
        // Inside a client of the agents' tmux server this returns once that client is back on this session.
        await orange.slot('runtime').attach(outcome.row.meta, outcome.role, { signal: attached.signal });
        const back = attachInfo.get()?.mode === 'switch' ? 'back from' : 'detached from';
        view = { ...view, message: { text: `${back} ${outcome.row.meta.id}`, kind: 'info' } };
      } catch (error) {
        view = { ...view, message: { text: error instanceof Error ? error.message : String(error), kind: 'error' } };
      } finally {
        attached = undefined;
        resumeReading();
      }
      if (options.exitOnAttach || quitting) return;
    }
  } finally {
    offSignals();
    // What is typed while the watcher and the poll wind down is the shell's next command: it
    // stays in the terminal instead of being read (and dropped) by this process.
    stopReading(stdin);
    await Promise.all([started.catch(() => undefined).then(() => feed.stop()), duty.stop()]);
  }
}

/**
 * Node goes on reading a terminal once it started, paused or not (until its buffer fills), so the
 * keys meant for the attached tmux client (Ctrl-b d) would be split between it and this process.
 * Its reads stop while the agent has the terminal, and once the dashboard quits; the returned
 * function starts them again (a read the stream was waiting on when they stopped is still pending,
 * so nothing else would).
 */
function stopReading(stdin: NodeJS.ReadStream): () => void {
  stdin.pause();
  const handle = (stdin as unknown as { _handle?: { reading?: boolean; readStop?: () => number; readStart?: () => number } })._handle;
  if (!handle?.readStop || !handle.readStart || handle.reading === false) return () => undefined;
  handle.readStop();
  handle.reading = false;
  return () => {
    handle.readStart?.();
    handle.reading = true;
  };
}
