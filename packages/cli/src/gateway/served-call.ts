import { AsyncLocalStorage } from 'node:async_hooks';
import { withoutCallOrigin, type Caller, type Orange } from '@orange/core';

/**
 * A command run by the agent gateway on an agent's behalf, inside the long-running Orange: its
 * directory, environment and standard input are the agent's, its output is collected for the
 * reply, and its Orange is the server's (config and plugins loaded once, not per call).
 */
export interface ServedCall {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly stdin: string;
  /** Who makes the call, as the gateway verified it before running anything (an agent's call reaches only its own task). */
  readonly caller: Caller;
  /** The server's Orange for this call: the config of its project, chosen by the server, not by the caller's directory. */
  readonly orange: () => Promise<Orange>;
  stdout: string;
  stderr: string;
  exitCode: number;
}

const calls = new AsyncLocalStorage<ServedCall>();

/** The served call this code runs for, if it runs for one. */
export function servedCall(): ServedCall | undefined {
  return calls.getStore();
}

/** Runs `fn` (and everything it awaits) as `call`. */
export function serve<T>(call: ServedCall, fn: () => Promise<T>): Promise<T> {
  return calls.run(call, fn);
}

/** Runs `fn` as the server's own work, whatever call is being served (an Orange every call will share, being built). */
export function outsideCalls<T>(fn: () => Promise<T>): Promise<T> {
  return calls.exit(() => withoutCallOrigin(fn));
}

/** Writes to the caller's standard output: the served call's, else this process's. */
export function writeStdout(text: string): void {
  const call = servedCall();
  if (call) call.stdout += text;
  else process.stdout.write(text);
}

/** Writes to the caller's standard error. */
export function writeStderr(text: string): void {
  const call = servedCall();
  if (call) call.stderr += text;
  else process.stderr.write(text);
}

/** Sets the caller's exit code. */
export function setExitCode(code: number): void {
  const call = servedCall();
  if (call) call.exitCode = code;
  else process.exitCode = code;
}

/** The caller's working directory and environment. */
export function callerPlace(): { readonly cwd: string; readonly env: NodeJS.ProcessEnv } {
  const call = servedCall();
  return call ? { cwd: call.cwd, env: call.env } : { cwd: process.cwd(), env: process.env };
}
