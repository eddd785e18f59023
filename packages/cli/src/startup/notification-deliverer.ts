import { spawn } from 'node:child_process';
import type { Orange } from '@orange/core';

/**
 * Starts `orange notifications deliver` detached from this process (its own session, no stdio, not
 * waited for), in this directory so that it loads the same config. The calling CLI exits at once;
 * the deliverer empties the outbox and exits. Node's `spawn` with an argument array: execa's
 * promise and clean-up exist for children one waits on, and this one outlives its parent on purpose.
 */
export function startDeliverer(cliEntry: string, orange: Orange): void {
  try {
    const child = spawn(process.execPath, [cliEntry, 'notifications', 'deliver'], { cwd: process.cwd(), detached: true, stdio: 'ignore' });
    // Entries it would have delivered stay in the outbox: the next monitor pass delivers them.
    child.on('error', (error) => orange.log.child('notifications').warn('the notification deliverer could not start', { error: error.message }));
    child.unref();
  } catch (error) {
    orange.log.child('notifications').warn('the notification deliverer could not start', { error: error instanceof Error ? error.message : String(error) });
  }
}
