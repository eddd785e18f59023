import { listProcesses, withAncestors, type ProcessEntry } from './process-table.js';

/** How long each step of {@link stopProcesses} waits for the processes to go. */
export interface StopTimings {
  /** Wait after the first step (for processes already sent SIGHUP, e.g. by tmux closing their pane). */
  readonly graceMs?: number;
  /** Wait after SIGTERM, and again after SIGKILL, before giving up. */
  readonly signalWaitMs?: number;
  /** Skip the first wait and start with SIGTERM (nobody has signalled the processes yet). */
  readonly signalNow?: boolean;
}

const POLL_MS = 50;

function key(p: ProcessEntry): string {
  return `${p.pid}:${p.start}`;
}

function send(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Gone already (ESRCH), or not ours to signal (EPERM): the liveness check reports what is left.
  }
}

/**
 * Stops what `find` returns — called again at every step, so a child forked meanwhile is caught
 * too — escalating SIGTERM → SIGKILL, and waits (polling, with a deadline per step) until it is
 * gone. Never signals the calling process or its ancestors. Returns the survivors: empty when
 * everything stopped. A zombie counts as stopped, and a pid reused by a new process is not
 * mistaken for the old one.
 */
export async function stopProcesses(find: (table: readonly ProcessEntry[]) => readonly ProcessEntry[], timings: StopTimings = {}): Promise<ProcessEntry[]> {
  const graceMs = timings.graceMs ?? 1_000;
  const signalWaitMs = timings.signalWaitMs ?? 1_000;
  const steps: Array<{ signal: NodeJS.Signals | null; waitMs: number }> = [
    ...(timings.signalNow ? [] : [{ signal: null, waitMs: graceMs }]),
    { signal: 'SIGTERM', waitMs: signalWaitMs },
    { signal: 'SIGKILL', waitMs: signalWaitMs },
  ];
  const targets = new Map<string, ProcessEntry>();
  const survey = async () => {
    const table = await listProcesses();
    const protectedPids = withAncestors(table);
    const live = new Set(table.filter((p) => !p.zombie).map(key));
    for (const p of find(table)) if (!protectedPids.has(p.pid)) targets.set(key(p), p);
    for (const [k] of targets) if (!live.has(k)) targets.delete(k);
    return [...targets.values()];
  };
  for (const step of steps) {
    const alive = await survey();
    if (alive.length === 0) return [];
    if (step.signal) for (const p of alive) send(p.pid, step.signal);
    const deadline = Date.now() + step.waitMs;
    while (Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      if ((await survey()).length === 0) return [];
    }
  }
  return survey();
}
