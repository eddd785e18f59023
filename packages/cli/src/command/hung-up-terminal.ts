import { closeSync, fstatSync } from 'node:fs';
import { isatty } from 'node:tty';
import { onSignals } from '@orange/core';

/**
 * Follows the terminal of a long-running command (`dash`, `web`, `demo`) going away: SIGHUP, or
 * — often first, since a redraw can hit the closed terminal before the kernel's signal comes — a
 * write to stdout or stderr failing with EIO, which then raises SIGHUP itself so that every
 * listener hears of it the one way. `hungUp` is called once; from then on a failed write is ignored
 * (oclif's own listener rethrows it), so that the teardown runs to its end. The returned function
 * stops following; after a hang-up it keeps a SIGHUP listener (the kernel's signal may still be on
 * its way) and lets go of the dead terminal, so that the process exits with its own code.
 */
export function followHangUp(hungUp: () => void): () => void {
  let gone = false;
  const offSignal = onSignals(['SIGHUP'], () => {
    if (gone) return;
    gone = true;
    ignoreFailedWrites();
    hungUp();
  });
  const restore: Array<() => void> = [];
  for (const stream of [process.stdout, process.stderr]) {
    const before = stream.listeners('error') as Array<(error: Error) => void>;
    const onError = (error: NodeJS.ErrnoException) => {
      if (error.code === 'EIO') {
        ignoreFailedWrites();
        if (!gone) process.kill(process.pid, 'SIGHUP');
        return;
      }
      if (before.length === 0) throw error;
      for (const listener of before) listener.call(stream, error);
    };
    stream.removeAllListeners('error');
    stream.on('error', onError);
    restore.push(() => {
      stream.off('error', onError);
      for (const listener of before) stream.on('error', listener);
    });
  }
  return () => {
    if (gone) {
      releaseHungUpTerminal();
      return;
    }
    offSignal();
    for (const undo of restore) undo();
  };
}

/**
 * After a signal the terminal may be gone and every write to it fail (EIO), which oclif's own
 * listener rethrows: from then on a failed write to stdout or stderr is ignored, so that the
 * teardown that follows runs to its end.
 */
export function ignoreFailedWrites(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.removeAllListeners('error');
    stream.on('error', () => undefined);
  }
}

/**
 * Closes each standard stream whose terminal hung up (SIGHUP: the window was closed). Node 20
 * restores the terminal's modes on exit and aborts when it cannot (nodejs/node#51519); a closed
 * descriptor is skipped, so the process exits with its own code instead of a core dump.
 */
function releaseHungUpTerminal(): void {
  for (const fd of [0, 1, 2]) {
    try {
      // A hung-up terminal is still a character device, but no longer answers as a terminal.
      if (fstatSync(fd).isCharacterDevice() && !isatty(fd)) closeSync(fd);
    } catch {
      // Already closed.
    }
  }
}
