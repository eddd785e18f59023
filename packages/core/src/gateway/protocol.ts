/**
 * The gateway's wire format (docs/architecture.md, "The gateway"): over a Unix socket, the client
 * writes one request as a line of JSON, the server answers with one line of JSON and closes.
 * Shared by the client (`bin/run.cjs`, the agent wrapper: Node builtins only) and the server.
 */

/** Who a socket serves: agents (with the identity Orange gave them), or a person's scripts. */
export type GatewayCaller = 'agent' | 'person';

/**
 * Where each socket is under an Orange home (OrangePaths says the same). The agents' socket is
 * alone in its folder, so that a container can be given it and nothing else; the people's sits
 * with Orange's own run-time files, which no agent is ever given.
 */
export const GATEWAY_SOCKETS: Readonly<Record<GatewayCaller, readonly string[]>> = {
  agent: ['gateway', 'agents.sock'],
  person: ['run', 'people.sock'],
};

/** The protocol's version: a server answers a request of another version with an error reply. */
export const GATEWAY_VERSION = 1;

/** Longest request line the server reads (a section's text is capped at 1 MB; JSON escapes it). */
export const REQUEST_MAX_BYTES = 4 * 1024 * 1024;

/** The commands each socket answers, as their words on the command line. */
export const SERVED_COMMANDS: Readonly<Record<GatewayCaller, readonly (readonly string[])[]>> = {
  // The agents' own commands.
  agent: [['task', 'update'], ['task', 'section', 'set'], ['task', 'show'], ['agent', 'exited']],
  // What a script drives a fleet with (a person at a terminal runs the CLI itself: it may ask them things).
  person: [['task', 'create'], ['task', 'merge'], ['task', 'cancel'], ['task', 'move'], ['task', 'list'], ['task', 'show']],
};

export interface GatewayRequest {
  readonly v: number;
  /** The command line after `orange`, its words included. */
  readonly argv: readonly string[];
  readonly cwd: string;
  /** The caller's variables that {@link requestEnv} keeps. */
  readonly env: Readonly<Record<string, string>>;
  /** The caller's standard input, for `-`, `--file -` and `--context -`. */
  readonly stdin: string;
  readonly pid: number;
  /** Answer `{accepted}` at once and carry the call out afterwards (an exit report: its sender is leaving). */
  readonly detach?: boolean;
}

export type GatewayReply =
  | { readonly stdout: string; readonly stderr: string; readonly exit: number }
  | { readonly accepted: true }
  /** Not this server's to run (its environment differs from the caller's): the caller runs the CLI. Nothing was done. */
  | { readonly refer: string };

/**
 * Variables that describe a shell or a terminal, not what a command or the processes it starts
 * (git, gh, tmux, an agent) do: two processes may differ in them and still run a command alike.
 */
export function isShellVariable(key: string): boolean {
  // ORANGE_CODE_CACHE_DIR: where the CLI keeps its compiled code, which bin/run.cjs sets for itself.
  return /^(_|PWD|OLDPWD|SHLVL|TERM|TERM_\w+|COLORTERM|COLUMNS|LINES|TMUX|TMUX_PANE|WINDOWID|SSH_TTY|SSH_CLIENT|SSH_CONNECTION|PS\d|PROMPT_COMMAND|HIST\w*|INIT_CWD|npm_\w+|ORANGE_CODE_CACHE_DIR)$/.test(key);
}

/**
 * The variables a request carries. An agent's: Orange's own (its identity among them, not the
 * prompt: long, and in TASK.md anyway) and where in tmux it runs. A person's: all of them but a
 * shell's own, for the server to compare with its own — a person's call is served only by a server
 * whose environment is the same, so that a merge commits and pushes, and an agent starts, as the
 * person's own CLI would have done it.
 */
export function requestEnv(env: NodeJS.ProcessEnv, caller: GatewayCaller = 'agent'): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined || key === 'ORANGE_PROMPT') continue;
    const agentKeeps = key.startsWith('ORANGE_') || key === 'TMUX' || key === 'TMUX_PANE';
    if (caller === 'agent' ? agentKeeps : agentKeeps || !isShellVariable(key)) kept[key] = value;
  }
  return kept;
}

/** The first variable (not a shell's) whose value differs between two environments, or null when they run commands alike. */
export function environmentDifference(one: Readonly<Record<string, string | undefined>>, other: Readonly<Record<string, string | undefined>>): string | null {
  const keys = new Set([...Object.keys(one), ...Object.keys(other)]);
  for (const key of keys) if (!isShellVariable(key) && key !== 'ORANGE_PROMPT' && (one[key] ?? '') !== (other[key] ?? '')) return key;
  return null;
}

/** The served command `argv` starts with (its words), or null. */
export function servedWords(argv: readonly string[], caller: GatewayCaller = 'agent'): readonly string[] | null {
  return SERVED_COMMANDS[caller].find((words) => words.every((word, i) => argv[i] === word)) ?? null;
}
