/**
 * The agent gateway's wire format (docs/architecture.md, "The agent gateway"): over a Unix socket,
 * the client writes one request as a line of JSON, the server answers with one line of JSON and
 * closes. Shared by the client (`bin/run.js`, the agent wrapper: Node builtins only) and the server.
 */

/** Where the socket is under an Orange home (OrangePaths.gatewaySocket says the same). */
export const GATEWAY_SOCKET = ['gateway', 'agents.sock'] as const;

/** The protocol's version: a server answers a request of another version with an error reply. */
export const GATEWAY_VERSION = 1;

/** Longest request line the server reads (a section's text is capped at 1 MB; JSON escapes it). */
export const REQUEST_MAX_BYTES = 4 * 1024 * 1024;

/** The commands the gateway answers, as their words on the command line. */
export const SERVED_COMMANDS: readonly (readonly string[])[] = [
  ['task', 'update'],
  ['task', 'section', 'set'],
  ['task', 'show'],
  ['agent', 'exited'],
];

export interface GatewayRequest {
  readonly v: number;
  /** The command line after `orange`, its words included. */
  readonly argv: readonly string[];
  readonly cwd: string;
  /** The caller's Orange variables (its identity among them) and its tmux pane; nothing else. */
  readonly env: Readonly<Record<string, string>>;
  /** The caller's standard input, for `-` and `--file -`. */
  readonly stdin: string;
  readonly pid: number;
  /** Answer `{accepted}` at once and carry the call out afterwards (an exit report: its sender is leaving). */
  readonly detach?: boolean;
}

export type GatewayReply =
  | { readonly stdout: string; readonly stderr: string; readonly exit: number }
  | { readonly accepted: true };

/** The variables a request carries: Orange's own and where in tmux the caller runs. */
export function requestEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    // Not the prompt: it can be long, and the server has it in TASK.md anyway.
    if (value !== undefined && key !== 'ORANGE_PROMPT' && (key.startsWith('ORANGE_') || key === 'TMUX' || key === 'TMUX_PANE')) kept[key] = value;
  }
  return kept;
}

/** The served command `argv` starts with (its words), or null. */
export function servedWords(argv: readonly string[]): readonly string[] | null {
  return SERVED_COMMANDS.find((words) => words.every((word, i) => argv[i] === word)) ?? null;
}
