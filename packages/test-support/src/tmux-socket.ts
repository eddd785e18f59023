import { rm } from 'node:fs/promises';
import { join } from 'node:path';

/** Where tmux keeps the socket of server `name` (`tmux -L name`): `$TMUX_TMPDIR/tmux-<uid>/name`. */
export function tmuxSocketFile(name: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(env.TMUX_TMPDIR || '/tmp', `tmux-${process.getuid?.() ?? 0}`, name);
}

/** Removes a killed server's socket file, which `kill-server` leaves behind (runs of a suite pile them up). */
export async function removeTmuxSocket(name: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  await rm(tmuxSocketFile(name, env), { force: true });
}
