import { spawn } from 'node:child_process';

/** How a quick command ended. */
export interface QuickResult {
  /** Its exit code; null when it could not start or died of a signal. */
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Why it could not start (`ENOENT`: no such executable), else null. */
  readonly error: NodeJS.ErrnoException | null;
}

export interface QuickOptions {
  readonly cwd?: string;
  /** The whole environment of the command (not added to this process's). */
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * Runs a short command — an argument array, never a shell — with no input, and collects its
 * output (one final newline dropped, as execa does). Never rejects. For the calls a long-running
 * Orange makes by the dozen per task (git, tmux): execa costs ~1.3 ms more CPU per call than this
 * (measured in a 250 MB process, 2.7 against 1.2 ms); everything else keeps using execa.
 */
export function quickRun(file: string, args: readonly string[], options: QuickOptions = {}): Promise<QuickResult> {
  return new Promise((resolve) => {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let settled = false;
    const settle = (exitCode: number | null, error: NodeJS.ErrnoException | null) => {
      if (settled) return;
      settled = true;
      resolve({ exitCode, stdout: text(out), stderr: text(err), error });
    };
    let child;
    try {
      child = spawn(file, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (error) {
      settle(null, error as NodeJS.ErrnoException);
      return;
    }
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', (error) => settle(null, error));
    child.on('close', (code) => settle(code, null));
  });
}

function text(chunks: Buffer[]): string {
  const all = Buffer.concat(chunks).toString('utf8');
  return all.endsWith('\r\n') ? all.slice(0, -2) : all.endsWith('\n') ? all.slice(0, -1) : all;
}
