import { rm } from 'node:fs/promises';
import { join } from 'node:path';

/** Where tmux keeps the socket of server `name` (`tmux -L name`): `$TMUX_TMPDIR/tmux-<uid>/name`. */
export function tmuxSocketFile(name: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(env.TMUX_TMPDIR || '/tmp', `tmux-${process.getuid?.() ?? 0}`, name);
}

/**
 * Removes a killed server's socket file, which `kill-server` leaves behind (runs of a suite pile
 * them up), and the start-up lock beside it (`<socket>.lock`): tmux removes that once its server is
 * up, but a client cut short while starting one, or two starting it at once, can leave it.
 */
export async function removeTmuxSocket(name: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const file = tmuxSocketFile(name, env);
  await Promise.all([rm(file, { force: true }), rm(`${file}.lock`, { force: true })]);
}
