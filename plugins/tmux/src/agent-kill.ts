import { spawn } from 'node:child_process';
import { callOrigin, type ActionContext } from '@orange/core';
import { callerLocation } from './caller-location.js';
import { isReviewerWindow, sessionTarget, taskSession, windowTarget } from './session-name.js';
import { killVerified, type KillTimings } from './tmux-kill.js';
import type { TmuxClient } from './tmux-client.js';
import { reaperArgv } from './window-reaper-argv.js';

/** What the kill actions need besides the action context. */
export interface KillSetup {
  readonly client: TmuxClient;
  /** The built window reaper (`dist/window-reaper.js`), for kills of the caller's own window. */
  readonly reaperPath: string;
  readonly timings?: KillTimings;
  /** The process a handed-off kill waits for: this `orange` call (tests name another). */
  readonly callerPid?: number;
}

/**
 * Kills the task's whole session and waits until every agent process in it is gone. The spawn ids
 * are cleared first so the killed agents' exit reports find nothing to act on. When the calling
 * process itself runs in that session, the kill is handed to the window reaper instead.
 */
export async function killTaskSession(ctx: ActionContext, setup: KillSetup): Promise<void> {
  const { client } = setup;
  const meta = ctx.task.meta;
  if (meta.worker_spawn !== null || meta.reviewer_spawn !== null) await ctx.update({ worker_spawn: null, reviewer_spawn: null });
  const session = taskSession(meta);
  const caller = await callerLocation(client);
  if (caller?.session !== session) {
    await killVerified(client, 'session', sessionTarget(session), setup.timings);
    return;
  }
  // Later actions of the same transition may start agents here (classic: kill_session, then
  // spawn_reviewer); only the windows that exist now are killed, by their unique ids.
  const listed = await client.attempt(['list-windows', '-t', sessionTarget(session), '-F', '#{window_id}']);
  const windows = listed.ok ? listed.stdout.split('\n').filter((id) => id.startsWith('@')) : [];
  handOffKill(ctx, setup, windows);
}

/**
 * Kills the reviewer's window only (the recorded spawn's; every reviewer window of the task when
 * none is recorded), and waits until its agent is gone; the worker keeps running.
 */
export async function killReviewerWindow(ctx: ActionContext, setup: KillSetup): Promise<void> {
  const { client } = setup;
  const meta = ctx.task.meta;
  if (meta.reviewer_spawn !== null) await ctx.update({ reviewer_spawn: null });
  const session = taskSession(meta);
  const windows = (await client.listWindows()).filter((w) => w.session === session && isReviewerWindow(w.window, meta.reviewer_spawn)).map((w) => w.window);
  if (windows.length === 0) return;
  const caller = await callerLocation(client);
  for (const window of windows) {
    if (caller?.session !== session || caller.window !== window) {
      await killVerified(client, 'window', windowTarget(session, window), setup.timings);
      continue;
    }
    const id = await client.attempt(['display-message', '-p', '-t', windowTarget(session, window), '#{window_id}']);
    handOffKill(ctx, setup, id.ok ? [id.stdout.trim()] : []);
  }
}

/**
 * Kills the caller's own windows once the caller has gone: killed from inside, tmux would close
 * the caller's terminal while it is still writing its result (Node then dies with an assertion
 * dump). A call the gateway serves is waited for here (its connection closes when it exits); an
 * `orange` call of its own hands the kill to a detached reaper that waits for it.
 */
function handOffKill(ctx: ActionContext, setup: KillSetup, windows: readonly string[]): void {
  if (windows.length === 0) return;
  const { client } = setup;
  const origin = callOrigin();
  if (origin.ended && setup.callerPid === undefined) {
    const task = ctx.task.meta.id;
    const kill = origin.ended.then(async () => {
      for (const window of windows) {
        await killVerified(client, 'window', window, setup.timings).then(
          () => ctx.log.info('own window killed after the served call ended', { task, window, caller: origin.pid }),
          (error: unknown) => ctx.log.error('killing own window failed', { task, window, error: error instanceof Error ? error.message : String(error) }),
        );
      }
    });
    // The server waits for it before it stops: a window must not outlive a monitor stopped mid-way.
    if (origin.keep) origin.keep(kill);
    else void kill;
    return;
  }
  const after = setup.callerPid ?? origin.pid;
  // The reaper learns that this process has exited when the pipe to it closes (no polling); a
  // caller named by a test is another process, which the reaper watches in /proc instead.
  const watch = after === process.pid ? 'stdin' : 'poll';
  const argv = reaperArgv({ tmux: client.bin, socket: client.socketName, after, watch, log: ctx.orange.paths.logFile, windows });
  const reaper = spawn(process.execPath, [setup.reaperPath, ...argv], { detached: true, stdio: [watch === 'stdin' ? 'pipe' : 'ignore', 'ignore', 'ignore'], cwd: '/' });
  reaper.on('error', (error) => ctx.log.error('window reaper did not start', { windows, error: error.message }));
  // Neither the reaper nor the pipe to it may keep this call alive: the pipe closes when it exits.
  reaper.stdin?.on('error', () => undefined);
  (reaper.stdin as { unref?: () => void } | null)?.unref?.();
  reaper.unref();
  ctx.log.info('own windows handed to the window reaper', { task: ctx.task.meta.id, windows, caller: after, reaper: reaper.pid });
}
