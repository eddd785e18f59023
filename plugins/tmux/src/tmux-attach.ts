import { setTimeout as sleep } from 'node:timers/promises';
import { OrangeError, type AttachInfo } from '@orange/core';
import { TmuxClient } from './tmux-client.js';

/** How often a switched client is looked at while it is away (one `list-clients` each time). */
export const BACK_POLL_MS = 250;

/** How long the "how to come back" message stays on the status line of a switched client. */
const HINT_MS = 5_000;

/** The socket of the tmux server this process runs inside (`$TMUX` is `socket,pid,session`), or null outside tmux. */
export function outerSocket(env: NodeJS.ProcessEnv): string | null {
  const tmux = env.TMUX?.trim();
  if (!tmux) return null;
  const socket = tmux.split(',')[0];
  return socket ? socket : null;
}

/** True when `client` talks to the server this process runs inside (no `-L`, or `-L` naming that very socket). */
export async function sameServer(client: TmuxClient, env: NodeJS.ProcessEnv): Promise<boolean> {
  const socket = outerSocket(env);
  if (socket === null) return false;
  // Without -L, tmux itself picks the server of $TMUX.
  if (!client.socketName) return true;
  const result = await client.attempt(['list-sessions', '-F', '#{socket_path}']);
  return result.ok && result.stdout.split('\n')[0]?.trim() === socket;
}

/** The server's prefix key as tmux names it (`C-b`), or `prefix` when it cannot tell; `env` picks the server of a client without `-L`. */
async function prefixOf(client: TmuxClient, env?: Readonly<Record<string, string>>): Promise<string> {
  const result = await client.attempt(['show-options', '-gv', 'prefix'], env);
  const prefix = result.ok ? result.stdout.trim() : '';
  return prefix && prefix !== 'None' ? prefix : 'prefix';
}

/**
 * Which way `attach` goes from this process, and the keys back:
 * - outside tmux, a client takes the terminal: `C-b d` detaches it;
 * - inside a client of the agents' own server, that client switches to the agent's session:
 *   `C-b L` (switch-client -l, the last session) comes back — `C-b d` would detach the whole client;
 * - inside another tmux server (Orange on its own socket, `-L`), a client runs nested in the pane:
 *   the outer tmux takes the prefix first, so it is pressed twice when both servers use the same one.
 */
export async function attachInfo(client: TmuxClient, env: NodeJS.ProcessEnv): Promise<AttachInfo> {
  const inner = await prefixOf(client);
  if (outerSocket(env) === null) return { mode: 'attach', back: `${inner} d`, prefix: inner };
  if (await sameServer(client, env)) return { mode: 'switch', back: `${inner} L`, prefix: inner };
  // Without -L, tmux talks to the server named by $TMUX: the one this process runs inside.
  const outer = await prefixOf(new TmuxClient(client.bin, undefined), { TMUX: env.TMUX ?? '' });
  return { mode: 'nested', back: outer === inner ? `${outer} ${inner} d` : `${inner} d`, prefix: inner };
}

/** The client showing the pane this process runs in, and the session it shows now; null when no client shows it. */
async function ownClient(client: TmuxClient): Promise<{ name: string; session: string } | null> {
  const result = await client.attempt(['display-message', '-p', '#{client_name}\t#{session_id}']);
  const [name, session] = result.stdout.trim().split('\t');
  return result.ok && name && session ? { name, session } : null;
}

/**
 * Inside a client of the agents' server: switches that client to `target`, tells it how to come
 * back, and resolves once it is back on the session it left (or is gone: detached, its terminal
 * closed), or when `signal` aborts. tmux gives no blocking "wait until this client switches", so the
 * client's session is read every {@link BACK_POLL_MS} ms (no hook is set on the person's server).
 * False when no client shows this process's pane (the caller attaches nested instead).
 */
export async function switchAndWait(client: TmuxClient, target: string, back: string, signal?: AbortSignal): Promise<boolean> {
  const own = await ownClient(client);
  if (own === null) return false;
  const switched = await client.attempt(['switch-client', '-c', own.name, '-t', target]);
  if (!switched.ok) throw new OrangeError('E_RUNTIME', `tmux switch-client failed: ${switched.stderr.trim() || 'unknown error'}`);
  const hint = `orange: ${back} (switch-client -l) comes back`;
  // -d (tmux ≥ 3.2) keeps it up long enough to read; older servers show it for display-time.
  if (!(await client.attempt(['display-message', '-c', own.name, '-d', String(HINT_MS), hint])).ok) await client.attempt(['display-message', '-c', own.name, hint]);
  while (!signal?.aborted) {
    await sleep(BACK_POLL_MS, undefined, { signal }).catch(() => undefined);
    if (signal?.aborted) break;
    const clients = await client.attempt(['list-clients', '-F', '#{client_name}\t#{session_id}']);
    if (!clients.ok) return true;
    const line = clients.stdout.split('\n').find((l) => l.split('\t')[0] === own.name);
    if (line === undefined || line.split('\t')[1] === own.session) return true;
  }
  return true;
}
