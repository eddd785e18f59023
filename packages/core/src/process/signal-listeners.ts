/**
 * Listens for `signals` until the returned function is called. Always `process.on`, never `once`:
 * signal-exit (loaded by execa and proper-lockfile) re-sends a signal to the process when, at the
 * moment it runs, only its own listeners are left; a `once` listener has removed itself by then,
 * so a SIGTERM that arrives while a child process runs would kill the process mid-way.
 */
export function onSignals<S extends NodeJS.Signals>(signals: readonly S[], handler: (signal: S) => void): () => void {
  const listeners = signals.map((signal) => [signal, () => handler(signal)] as const);
  for (const [signal, listener] of listeners) process.on(signal, listener);
  return () => {
    for (const [signal, listener] of listeners) process.off(signal, listener);
  };
}
