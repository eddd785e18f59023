/**
 * Sends `signal` to a process a test listed a moment ago, which may have ended since (a pgrep match
 * that was a short-lived process, an agent that finished): true when it was sent, false when the
 * process was gone. Any other failure (EPERM) is thrown, so a test never mistakes it for "gone".
 */
export function signalProcess(pid: number, signal: NodeJS.Signals | 0 = 'SIGKILL'): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
}

/** Whether a process with this pid exists now. */
export function processAlive(pid: number): boolean {
  return signalProcess(pid, 0);
}
