import type { ActionContext } from '@orange/core';
import { callerLocation } from './caller-location.js';
import { sessionTarget, taskSession, windowName, windowTarget } from './session-name.js';
import type { TmuxClient } from './tmux-client.js';

/**
 * Kills the task's whole session. The spawn ids are cleared first so the killed agents' exit
 * reports find nothing to act on; the kill waits until the transition is done when the calling
 * process itself runs in that session.
 */
export async function killTaskSession(ctx: ActionContext, client: TmuxClient): Promise<void> {
  const meta = ctx.task.meta;
  if (meta.worker_spawn !== null || meta.reviewer_spawn !== null) await ctx.update({ worker_spawn: null, reviewer_spawn: null });
  const session = taskSession(meta);
  const caller = await callerLocation(client);
  if (caller?.session !== session) {
    await client.killIfPresent(['kill-session', '-t', sessionTarget(session)]);
    return;
  }
  // The caller runs in this session, so the kill waits until the transition is done. Later
  // actions of the same transition may start agents here (classic: kill_session, then
  // spawn_reviewer); only the windows that exist now are killed, by their unique ids.
  const listed = await client.attempt(['list-windows', '-t', sessionTarget(session), '-F', '#{window_id}']);
  const windows = listed.ok ? listed.stdout.split('\n').filter((id) => id.startsWith('@')) : [];
  ctx.defer(async () => {
    for (const id of windows) await client.killIfPresent(['kill-window', '-t', id]);
  });
}

/** Kills the current round's reviewer window only; the worker keeps running. */
export async function killReviewerWindow(ctx: ActionContext, client: TmuxClient): Promise<void> {
  const meta = ctx.task.meta;
  if (meta.reviewer_spawn !== null) await ctx.update({ reviewer_spawn: null });
  const session = taskSession(meta);
  const window = windowName(meta, 'reviewer');
  const kill = async () => {
    await client.killIfPresent(['kill-window', '-t', windowTarget(session, window)]);
  };
  const caller = await callerLocation(client);
  if (caller?.session === session && caller.window === window) ctx.defer(kill);
  else await kill();
}
