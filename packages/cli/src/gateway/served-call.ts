import { AsyncLocalStorage } from 'node:async_hooks';
import type { Orange } from '@orange/core';

/**
 * A command run by the agent gateway on an agent's behalf, inside the long-running Orange: its
 * directory, environment and standard input are the agent's, its output is collected for the
 * reply, and its Orange is the server's (config and plugins loaded once, not per call).
 */
export interface ServedCall {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly stdin: string;
  /** The task the caller's identity names: a served call reaches no other. */
  readonly task: { readonly project: string; readonly id: string };
  /** The server's Orange for a config searched from `cwd`. */
  readonly orangeFor: (cwd: string) => Promise<Orange>;
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
