import type { Project } from '../store/index.js';
import type { AgentRole, Task, TaskMeta } from '../task/index.js';
import type { PullRequestCheck, PullRequestFeedback, PullRequestState } from './pull-request.js';

/** Liveness of every agent, read with one call to the runtime. */
export interface RuntimeSnapshot {
  isAlive(task: TaskMeta, role: AgentRole): boolean;
  /** Names of every session the runtime has (for orphan cleanup). */
  readonly sessions: readonly string[];
  /** Number of external processes this snapshot cost (for the bench). */
  readonly processes: number;
}

/** How a runtime's `attach` hands this process's terminal to an agent, and how the person comes back. */
export interface AttachInfo {
  /**
   * `attach`: a client of the runtime takes this terminal until it detaches; `switch`: this
   * terminal's own client (of the same tmux server) moves to the agent's session, and `attach`
   * returns once it is back; `nested`: a client runs inside the pane this process runs in.
   */
  readonly mode: 'attach' | 'switch' | 'nested';
  /** The keys that come back, as typed (`C-b d`, `C-b L`, `C-b C-b d`). */
  readonly back: string;
  /** The prefix key of the agents' runtime as typed (`C-b`): `<prefix> d` detaches a client of it. */
  readonly prefix: string;
}

/** The size of an agent's terminal, in character cells. */
export interface TerminalSize {
  readonly cols: number;
  readonly rows: number;
}

/** What a {@link TerminalStream} tells its reader, in order. */
export interface TerminalListener {
  /**
   * The screen as it is now, to draw from scratch: its text with colours as SGR escape sequences,
   * lines ending in CRLF, then the cursor moved where the agent's cursor is. Sent first, and again
   * after the agent's window changed size (or whenever the runtime draws it afresh): reset the
   * terminal to `size` before writing it. Output that follows goes on from exactly this screen.
   */
  screen(data: string, size: TerminalSize): void;
  /** Bytes the agent wrote to its terminal since (escape sequences and all, as a terminal reads them). */
  output(data: Uint8Array): void;
  /** The window is gone (the agent's session ended) or the stream broke; nothing follows. */
  closed(reason: string): void;
}

/**
 * A live view of an agent's terminal (the web page's terminal panes): what the agent writes as it
 * writes it, and keys typed into it. Watching changes nothing; `input` and `resize` act on the
 * agent's window as a person typing in it would.
 */
export interface TerminalStream {
  /** Types these bytes into the agent's terminal, as a keyboard would (raw: `\r` is Enter, `\u0003` Ctrl-C). */
  input(data: string): Promise<void>;
  /** Resizes the agent's window (the person typing wants it the size of their own screen). */
  resize(size: TerminalSize): Promise<void>;
  /** Stops following; the agent goes on. The listener is not called again; `input` and `resize` do nothing after. */
  close(): Promise<void>;
}

/** The runtime slot (tmux): where agents run. Spawning/killing are actions on the bus. */
export interface Runtime {
  readonly name: string;
  snapshot(): Promise<RuntimeSnapshot>;
  /**
   * Hands the terminal to the task's session and returns when the person is back (detached, or
   * switched back to where they were); `signal` stops the wait early.
   */
  attach(task: TaskMeta, role?: AgentRole, options?: { readonly signal?: AbortSignal }): Promise<void>;
  /** How `attach` would hand the terminal over from this process, and the keys back (for help texts). */
  attachInfo?(): Promise<AttachInfo>;
  /** The session name a task's agents run in. */
  sessionName(task: TaskMeta): string;
  /** Kills a session by exact name; a missing session is not an error (false, where the runtime can tell: nothing was killed). */
  killSession(name: string): Promise<boolean | void>;
  /** The command a person runs to watch the task's agent (shown in notifications), as argv. */
  attachCommand?(task: TaskMeta): readonly string[];
  /**
   * Types one line into the agent's terminal, literally; false when that agent is not running.
   * Used by reactions to hand pull request feedback to the worker.
   */
  sendLine?(task: TaskMeta, role: AgentRole, line: string): Promise<boolean>;
  /**
   * What the agent's window shows now (the dashboard's live preview): its visible text, colours
   * as SGR escape sequences; null when the agent has no window. Optional: a runtime without it
   * shows no preview.
   */
  capture?(task: TaskMeta, role: AgentRole): Promise<string | null>;
  /**
   * Follows the agent's terminal live (the web page): the screen now, then every byte written to
   * it; null when the agent has no window. The listener is first called after the promise resolves.
   * Optional: a runtime without it shows no live terminal.
   */
  terminal?(task: TaskMeta, role: AgentRole, listener: TerminalListener): Promise<TerminalStream | null>;
}

export interface WorkspaceInfo {
  readonly name: string;
  readonly project: string;
  readonly path: string;
  /** The task holding it, or null when free. */
  readonly task: string | null;
}

export interface GcResult {
  readonly freed: WorkspaceInfo[];
  /** Tasks whose worktree was not looked at because another process held the task's lock (next time). */
  readonly busy?: readonly string[];
  /** Queued tasks started on the worktrees that are free now. */
  readonly started?: readonly string[];
}

/** How far a task's branch is from the project's default branch (the dashboard's AHEAD and CHANGES). */
export interface DiffStat {
  /** Commits on the task's branch that the default branch does not have. */
  readonly ahead: number;
  readonly added: number;
  readonly removed: number;
  /** Per file, as `git diff --numstat` counts it (binary files count 0). */
  readonly files: ReadonlyArray<{ readonly path: string; readonly added: number; readonly removed: number }>;
}

/** The workspace slot (git worktree pool). Acquire/release are actions on the bus. */
export interface WorkspaceProvider {
  readonly name: string;
  init(project: Project): Promise<WorkspaceInfo[]>;
  list(project?: string): Promise<WorkspaceInfo[]>;
  /** Frees worktrees of finished or missing tasks: of one project, or of all. */
  gc(project?: string): Promise<GcResult>;
  /**
   * Renames the task's branch in its worktree to `to` and returns the branch now checked out;
   * with `null`, returns the branch the worktree is on (an agent renamed it with git).
   */
  renameBranch?(task: TaskMeta, to: string | null): Promise<string>;
  /** Where a branch of that name exists already (`a local branch`, `origin/x`), or null: a task's new branch must be its own. */
  branchTaken?(project: string, name: string): Promise<string | null>;
  /**
   * The ref a task's worktree starts from and its changes are compared against (`origin/main`, or
   * the local default branch where there is no remote): prompts name it as `{base}`. Refuses
   * (`E_WORKSPACE`) a project whose default branch exists neither on its remote nor locally: asked
   * before a task is created to start and before a default branch is set, so that nothing is left
   * half made.
   */
  baseRef?(project: Project): Promise<string>;
  /** Removes the worktrees of a project being unregistered; refuses (removing nothing) if any is in use or dirty. */
  remove?(project: Project): Promise<WorkspaceInfo[]>;
  /** The task's worktree against the default branch (uncommitted changes included); null without a worktree. */
  diffStat?(task: TaskMeta): Promise<DiffStat | null>;
  /** The same changes as a whole unified diff (no colour, no renames), cut at `maxBytes`; null without a worktree. */
  diff?(task: TaskMeta, maxBytes?: number): Promise<string | null>;
}

/** What a harness is asked to start. */
export interface HarnessRequest {
  readonly task: TaskMeta;
  readonly role: AgentRole;
  readonly prompt: string;
  /** True when this agent replaces one that crashed (harnesses may reduce permissions). */
  readonly respawn: boolean;
  readonly effort: string | null;
  readonly workspace: string;
}

/** A command as an argument array (never a shell string) plus extra environment. */
export interface HarnessCommand {
  readonly argv: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * What a harness is asked to run headless: one non-interactive agent run (a pipeline's classifier
 * or one phase) that works in the worktree, prints its result and exits.
 */
export interface HeadlessRequest {
  readonly task: TaskMeta;
  readonly prompt: string;
  readonly workspace: string;
  /** The model tier for this run, passed as the harness's model flag; null: the harness's default. */
  readonly model: string | null;
  /** What is being run: `classify` or the phase name (`plan`, `implement`, …). */
  readonly phase: string;
  /**
   * A file the run may write its result to as JSON (`{ "ok", "cost_usd", "intent", "confidence", "output" }`);
   * harnesses that report on stdout ignore it. Passed to the process as `ORANGE_RESULT_FILE`.
   */
  readonly resultFile: string;
}

/** What a headless run left behind, for the harness to read its outcome from. */
export interface HeadlessRun {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
  /** The result file's text, or null when the run wrote none. */
  readonly resultFile: string | null;
  readonly model: string | null;
}

/** The outcome of a headless run as the harness reports it. */
export interface HeadlessResult {
  /** The run says it succeeded (exit code and the CLI's own error flag). */
  readonly ok: boolean;
  /** The agent's final text (its answer, or why it failed). */
  readonly output: string;
  /** What the run cost, as the CLI reports it (or computed from its token usage); 0 when unknown. */
  readonly costUsd: number;
  /** Structured fields the agent reported (e.g. `intent`, `confidence` from a classifier). */
  readonly data: Readonly<Record<string, unknown>>;
}

/** How a harness runs one agent headless (no terminal, one shot). Optional: not every CLI can. */
export interface HeadlessRunner {
  /** The argv (never a shell string) and extra environment of the run. */
  command(request: HeadlessRequest): HarnessCommand;
  /** Reads the run's outcome, cost included, from what it printed and wrote. Pure. */
  result(run: HeadlessRun): HeadlessResult;
  /** The model tiers from cheapest to strongest, used when the config names none for this harness. */
  readonly tiers: readonly string[];
  /**
   * Whether a run on `model` (null: the CLI's default) gets a cost; false when the harness would
   * report $0 (Codex without a price for the model). Absent: the CLI reports its own cost.
   */
  canPrice?(model: string | null): boolean;
}

/** A harness: how to run one agent CLI (Claude Code, Codex, a script, …). */
export interface Harness {
  readonly name: string;
  /** True when the agent CLI can be run on this machine. */
  installed(): Promise<boolean>;
  command(request: HarnessRequest): HarnessCommand;
  /** Paths (relative to the worktree) to hide from git via `.git/info/exclude`. */
  readonly excludes: readonly string[];
  /** Prepares a worktree before an agent starts (settings files, …). */
  prepare?(workspace: string, request: HarnessRequest): Promise<void>;
  /** Where `orange install` writes the agent skill, if this harness has skills. */
  readonly skillsDir?: string;
  /** One-shot, non-interactive runs (the `pipeline` workflow's classifier and phases). */
  readonly headless?: HeadlessRunner;
  /**
   * Set for a harness that starts Orange's own code, not an agent CLI (the pipeline driver):
   * `orange doctor`, `init` and `install` leave it out, and it is never detected.
   */
  readonly internal?: boolean;
}

export interface MergeOptions {
  readonly strategy: 'ff' | 'merge';
  /** Merge locally even when a PR is open. */
  readonly local: boolean;
}

/** The SCM slot (GitHub): merging, pull requests, remote branches. */
export interface Scm {
  readonly name: string;
  merge(task: Task, project: Project, options: MergeOptions): Promise<{ merged: boolean; message: string }>;
  createPullRequest(task: Task, project: Project): Promise<{ url: string }>;
  pullRequestState(task: Pick<Task, 'meta'>, project: Project): Promise<PullRequestState | null>;
  /**
   * The task's pull request in one read: its state, and its checks and reviews (what reactions
   * act on; complete for an open one). Null when it has none. An SCM with it is asked this instead
   * of `pullRequestState` by the monitor's sync and the dashboard.
   */
  pullRequestFeedback?(task: Pick<Task, 'meta'>, project: Project): Promise<PullRequestFeedback | null>;
  /** The last `lines` lines of a failed check's log, or null when the check has no log to read. */
  checkLog?(task: Pick<Task, 'meta'>, project: Project, check: PullRequestCheck, lines: number): Promise<string | null>;
  /** Merges the task's open pull request on the host (the approved-and-green reaction with `auto`). */
  mergePullRequest?(task: Pick<Task, 'meta'>, project: Project): Promise<{ message: string }>;
}

/** An issue in a tracker, as a task is created from it (`orange task create --issue`). */
export interface TrackedIssue {
  /** How a pull request body refers to it to close it: `#123`, `acme/app#123`, `ENG-42`. */
  readonly ref: string;
  readonly url: string;
  readonly title: string;
  readonly body: string;
}

/** The tracker slot: where tasks can come from (GitHub issues; Linear or GitLab as plugins). */
export interface IssueTracker {
  readonly name: string;
  /** Reads one issue by number, key or URL; E_INVALID_INPUT for a reference it does not understand. */
  issue(ref: string, project: Project): Promise<TrackedIssue>;
  /** The line a pull request body carries to close the issue on merge (`Closes #123`). */
  closingLine(issue: Pick<TrackedIssue, 'ref'>): string;
}

/** The typed slots a plugin can fill. */
export interface Slots {
  runtime: Runtime;
  workspaces: WorkspaceProvider;
  scm: Scm;
  tracker: IssueTracker;
}
