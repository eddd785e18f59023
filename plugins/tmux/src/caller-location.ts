import { callOrigin } from '@orange/core';
import type { TmuxClient } from './tmux-client.js';

/** The session and window the calling process runs in, on this client's server. */
export interface CallerLocation {
  readonly session: string;
  readonly window: string;
}

/**
 * Where the calling process runs, when it runs inside a pane of this client's server (an agent's
 * own `orange` call, or one the gateway serves for it), else null. Pane ids are per server, so the
 * socket in `$TMUX` must match too.
 */
export async function callerLocation(client: TmuxClient, env: NodeJS.ProcessEnv = callOrigin().env): Promise<CallerLocation | null> {
  const pane = env.TMUX_PANE;
  const tmuxVar = env.TMUX;
  if (!pane || !tmuxVar) return null;
  const result = await client.attempt(['display-message', '-p', '-t', pane, '#{socket_path}\t#{session_name}\t#{window_name}']);
  if (!result.ok) return null;
  const [socket, session, window] = result.stdout.replace(/\n$/, '').split('\t');
  if (socket === undefined || session === undefined || window === undefined) return null;
  if (tmuxVar.split(',')[0] !== socket) return null;
  return { session, window };
}
