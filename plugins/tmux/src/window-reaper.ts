/**
 * Kills windows of an agent's own tmux session once the `orange` call that asked for it has
 * exited: killing them from inside that call would kill the call itself mid-way (tmux closes its
 * terminal), so it is handed to this detached process instead.
 * Usage: node window-reaper.js --tmux <bin> [--socket <name>] --after <pid> --log <file> -- <window id>…
 */
import { Logger, processStart } from '@orange/core';
import { killVerified } from './tmux-kill.js';
import { TmuxClient } from './tmux-client.js';
import { parseReaperArgv } from './window-reaper-argv.js';

/**
 * How long the reaper waits for the caller before killing anyway. The caller is an `orange` call
 * still recording its move (a loaded machine can take many seconds): closing its window earlier
 * would cut it off mid-move. Only a call hung for this long loses its window.
 */
const CALLER_DEADLINE_MS = 10 * 60_000;
const POLL_MS = 100;

/** Resolves once `pid` has exited (a zombie, or a later process reusing the pid, counts), or at the deadline. */
async function exitOf(pid: number, deadlineMs: number): Promise<boolean> {
  // One /proc read per poll, not a scan of every process: many reapers may wait at once.
  const started = await processStart(pid);
  if (started === null) return true;
  const deadline = Date.now() + deadlineMs;
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    if ((await processStart(pid)) !== started) return true;
  }
  return false;
}

/** Resolves once standard input ends (the caller holding its other end has exited), or at the deadline. */
function endOfInput(deadlineMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), deadlineMs);
    const ended = () => {
      clearTimeout(timer);
      process.stdin.destroy();
      resolve(true);
    };
    process.stdin.on('end', ended);
    process.stdin.on('error', ended);
    process.stdin.on('close', ended);
    process.stdin.resume();
  });
}

async function main(): Promise<void> {
  const args = parseReaperArgv(process.argv.slice(2));
  if (!args) {
    process.exitCode = 2;
    return;
  }
  const log = new Logger(args.log, 'info', 'tmux');
  const exited = args.watch === 'stdin' ? await endOfInput(CALLER_DEADLINE_MS) : await exitOf(args.after, CALLER_DEADLINE_MS);
  if (!exited) log.warn('caller still running at the deadline; killing its windows anyway', { caller: args.after, windows: args.windows });
  const client = new TmuxClient(args.tmux, args.socket);
  for (const window of args.windows) {
    try {
      await killVerified(client, 'window', window);
      log.info('own window killed after the caller exited', { window, caller: args.after });
    } catch (error) {
      log.error('killing own window failed', { window, error: error instanceof Error ? error.message : String(error) });
      process.exitCode = 1;
    }
  }
}

await main();
