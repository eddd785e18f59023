// What the page and the server say to each other. Types only (the page imports this file too), so
// nothing here may import a module with code.

/** A task's agent role, as the core names it. */
export type Role = 'worker' | 'reviewer';

/** How a task's agents look now (the dashboard's faces ● ◌ ✗ ○). */
export type Liveness = 'alive' | 'starting' | 'dead' | 'none';

/** A pull request as the board shows it. */
export interface PullRequestCell {
  readonly url: string;
  readonly number: number | null;
  /** `open`, `merged`, `closed`; null while unknown. */
  readonly state: string | null;
  /** ✓ all checks passed, ✗ one failed, … some still run; null without checks. */
  readonly checks: '✓' | '✗' | '…' | null;
}

/** One task on the board: the terminal dashboard's columns. */
export interface BoardRow {
  readonly project: string;
  readonly id: string;
  readonly branch: string;
  readonly summary: string;
  readonly status: string;
  readonly workflow: string | null;
  readonly harness: string | null;
  /** The worktree's number in the pool, or null without one. */
  readonly workspace: number | null;
  readonly liveness: Liveness;
  /** Agents alive now. */
  readonly alive: readonly Role[];
  /** Agents the task should have running. */
  readonly expected: readonly Role[];
  readonly terminal: boolean;
  readonly active: boolean;
  /** In its workflow's initial status: spawn starts it. */
  readonly waiting: boolean;
  /** Why a person should look (a hook failed), or null. */
  readonly attention: string | null;
  /** Engine-owned fields TASK.md shows with forged values (⚠). */
  readonly tampered: readonly string[];
  /** Statuses the workflow allows from here, and those only a confirmed force reaches. */
  readonly targets: readonly string[];
  readonly forcedTargets: readonly string[];
  /** What cancel does from here (`cancel`, `stop`, `abandon`), null when it cannot. */
  readonly cancel: string | null;
  readonly pr: PullRequestCell | null;
  /** Commits ahead of the base and lines changed; null until read (or without a worktree). */
  readonly ahead: number | null;
  readonly added: number | null;
  readonly removed: number | null;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** Bumped each time the task's files change: a task page re-reads when it moves. */
  readonly revision: number;
}

/** The board, pushed whole on the `board` server-sent event each time it changes. */
export interface BoardSnapshot {
  readonly rows: readonly BoardRow[];
  /** False until the first listing is in. */
  readonly loaded: boolean;
  /** Tasks whose files could not be read. */
  readonly unreadable: number;
  /** Why the tasks could not be listed, when they could not. */
  readonly error: string | null;
  /** When the server sent it (epoch ms; the page measures how fresh it is). */
  readonly sentAt: number;
}

/** `GET /api/session`: what the page needs once. */
export interface SessionInfo {
  /** The project the page is scoped to, null for every project. */
  readonly project: string | null;
  /** Projects a task can be created in, and the installed harnesses (the create form). */
  readonly projects: readonly string[];
  readonly harnesses: readonly string[];
  /** The Orange version serving the page. */
  readonly version: string;
}

/** One line of a task's history (`history.jsonl`): its type, when, and the event's own fields. */
export interface HistoryLine {
  readonly type: string;
  readonly timestamp: string;
  readonly [field: string]: unknown;
}

/** `GET /api/tasks/:project/:id`: the task page. */
export interface TaskDetail {
  readonly row: BoardRow | null;
  /** TASK.md's frontmatter fields. */
  readonly meta: Readonly<Record<string, string | number | boolean | null>>;
  /** TASK.md's markdown body (rendered by the page as text, never as HTML). */
  readonly body: string;
  readonly history: readonly HistoryLine[];
  /** The transcripts recorded for the task, newest last: role and spawn id (`GET …/transcript`). */
  readonly transcripts: ReadonlyArray<{ readonly role: Role; readonly spawn: string }>;
}

/** `GET /api/tasks/:project/:id/diff`: the task's changes against its base. */
export interface DiffDetail {
  readonly stat: {
    readonly ahead: number;
    readonly added: number;
    readonly removed: number;
    readonly files: ReadonlyArray<{ readonly path: string; readonly added: number; readonly removed: number }>;
  } | null;
  /** The whole unified diff (cut at 2 MB), null without a worktree. */
  readonly diff: string | null;
}

/** `GET /api/tasks/:project/:id/pr`: the pull request as the SCM reads it now. */
export interface PullRequestDetail {
  readonly url: string | null;
  readonly state: string | null;
  readonly checks: ReadonlyArray<{ readonly name: string; readonly state: string; readonly url?: string | null }> | null;
  /** Why it could not be read, when it could not. */
  readonly error: string | null;
}

/** `GET /api/tasks/:project/:id/transcript?role=&spawn=`: text/plain. */

/**
 * Actions: `POST /api/tasks/:project/:id/:action` with a JSON body, answered with
 * {@link ActionResult} (200) or {@link ApiError} (4xx/5xx). The `check-*` ones change nothing:
 * they refuse as the action would, or say what it would do (the page asks to confirm then).
 */
export type TaskAction =
  | { readonly action: 'spawn' }
  | { readonly action: 'respawn' }
  | { readonly action: 'request-changes'; readonly instructions: string }
  | { readonly action: 'check-merge' }
  | { readonly action: 'merge'; readonly force: boolean }
  | { readonly action: 'pr' }
  | { readonly action: 'sync-pr' }
  | { readonly action: 'check-cancel' }
  | { readonly action: 'cancel' }
  | { readonly action: 'check-delete' }
  | { readonly action: 'delete' }
  | { readonly action: 'clarify'; readonly answer: string }
  | { readonly action: 'resume'; readonly budgetUsd?: number };

export type TaskActionName = TaskAction['action'];

/** What an action did: one sentence, as the CLI would print it. */
export interface ActionResult {
  readonly message: string;
  /** check-merge: whether merging now is a force-merge (confirm first). */
  readonly forced?: boolean;
  /** check-cancel: the question to confirm with. */
  readonly confirm?: string;
  /** pr: the pull request's URL. */
  readonly url?: string;
}

/** `POST /api/tasks` with this body creates a task (the create form). */
export interface CreateTaskRequest {
  readonly project: string;
  readonly summary: string;
  /** Empty: one is made from the summary. */
  readonly branch: string;
  /** Null: the configured default harness. */
  readonly harness: string | null;
  /** `pending` starts its agent now; `reviewing` creates it for a person's review (no agent). */
  readonly status: 'pending' | 'reviewing';
}

/** The answer to `POST /api/tasks`. */
export interface CreateTaskResult {
  readonly message: string;
  readonly project: string;
  readonly id: string;
}

/** Every refusal: the engine's error code and its one-line message. */
export interface ApiError {
  readonly error: { readonly code: string; readonly message: string };
}

/**
 * The terminal WebSocket, `GET /api/terminal/:project/:id/:role` (upgraded). Server → page: binary
 * frames are the agent's output bytes; text frames are {@link TerminalServerMessage}. Page → server:
 * text frames, {@link TerminalClientMessage}. Input is taken only after `{type:'type', on:true}`.
 */
export type TerminalServerMessage =
  /** Draw this from scratch (reset the terminal, set its size, write `data`). */
  | { readonly type: 'screen'; readonly cols: number; readonly rows: number; readonly data: string }
  /** Whether keystrokes are taken now. */
  | { readonly type: 'mode'; readonly typing: boolean }
  /** The agent's window is gone, or cannot be followed; the socket closes after this. */
  | { readonly type: 'closed'; readonly reason: string };

export type TerminalClientMessage =
  | { readonly type: 'type'; readonly on: boolean }
  | { readonly type: 'input'; readonly data: string }
  /** The page's terminal fits this many cells: while typing, the agent's window is resized to it. */
  | { readonly type: 'resize'; readonly cols: number; readonly rows: number };
