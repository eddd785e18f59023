import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Where the call being served comes from. A one-shot CLI call is its own origin: this process,
 * its environment. A long-running Orange (the monitor) that answers an agent's call over the
 * gateway socket serves it on the agent's behalf: the environment is the agent's (its `$TMUX`
 * pane, its identity), the process is the agent's client, and `ended` says when that client hung
 * up — what a plugin waits for before it closes the window the call came from.
 */
export interface CallOrigin {
  readonly env: NodeJS.ProcessEnv;
  /** The calling process (the `orange` call itself, or the gateway's client). */
  readonly pid: number;
  /** Resolves once the caller has gone (a served call's connection closed); null for this process. */
  readonly ended: Promise<void> | null;
  /** Work that outlives the call (a window closed after it hung up), for its server to wait for before stopping. */
  readonly keep?: (work: Promise<unknown>) => void;
}

const served = new AsyncLocalStorage<CallOrigin>();

/** The origin of the call this code runs for: the served call's, else this process's own. */
export function callOrigin(): CallOrigin {
  return served.getStore() ?? { env: process.env, pid: process.pid, ended: null };
}

/** Runs `fn` (and everything it awaits) as the call from `origin`. */
export function withCallOrigin<T>(origin: CallOrigin, fn: () => Promise<T>): Promise<T> {
  return served.run(origin, fn);
}

/** Runs `fn` as this process's own work, whatever call is being served (a shared Orange being built). */
export function withoutCallOrigin<T>(fn: () => T): T {
  return served.exit(fn);
}
