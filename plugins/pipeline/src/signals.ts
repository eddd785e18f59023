const SIGNALS = ['SIGHUP', 'SIGTERM', 'SIGINT'] as const;
type StopSignal = (typeof SIGNALS)[number];

/**
 * Runs `fn` with hangup, terminate and interrupt held: `fn` is told of the first one that arrives
 * (`stop` resolves with it) and finishes; then the signal is raised again, so the process ends as
 * it would have. For the few steps that must not be cut short by a kill — a headless run's cost
 * written before the driver goes.
 */
export async function holdingSignals<T>(fn: (stop: Promise<StopSignal>) => Promise<T>): Promise<T> {
  let received: StopSignal | null = null;
  let tell: (signal: StopSignal) => void = () => undefined;
  const stop = new Promise<StopSignal>((resolve) => (tell = resolve));
  const listeners = SIGNALS.map((signal) => {
    const listener = () => {
      if (received !== null) return;
      received = signal;
      tell(signal);
    };
    process.on(signal, listener);
    return [signal, listener] as const;
  });
  try {
    return await fn(stop);
  } finally {
    for (const [signal, listener] of listeners) process.off(signal, listener);
    if (received !== null) process.kill(process.pid, received);
  }
}
