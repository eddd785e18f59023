import { execa } from 'execa';
import { OrangeError } from '@orange/core';

/** How long one call to the engine may take before Orange says it does not answer (never a hang). */
const ENGINE_TIMEOUT_MS = 20_000;

export interface EngineResult {
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs one `docker` command (an argument array) and returns its output; any failure — no CLI, no
 * engine, a refusal, no answer in time — is one E_RUNTIME line saying which.
 */
export async function docker(cli: string, args: readonly string[], what: string): Promise<EngineResult> {
  const result = await execa(cli, args, { reject: false, timeout: ENGINE_TIMEOUT_MS, stdin: 'ignore', env: { DOCKER_CLI_HINTS: 'false' } });
  if (result.exitCode === 0) return { stdout: String(result.stdout), stderr: String(result.stderr) };
  throw new OrangeError('E_RUNTIME', `docker: ${what}: ${engineTrouble(cli, result)}`);
}

interface Failure {
  readonly code?: string;
  readonly timedOut?: boolean;
  readonly stderr?: unknown;
  readonly exitCode?: number;
}

/** Why a docker command failed, in one line a person can act on. */
export function engineTrouble(cli: string, failure: Failure): string {
  if (failure.code === 'ENOENT') return `no ${cli} command on PATH (install Docker, or set the docker option to its path)`;
  if (failure.timedOut) return `the engine did not answer within ${ENGINE_TIMEOUT_MS / 1000} s (is dockerd running? DOCKER_HOST=${process.env.DOCKER_HOST ?? 'unset'})`;
  const stderr = String(failure.stderr ?? '').trim();
  if (/no such image/i.test(stderr)) return 'no such image on this engine (build or load it first: Orange never pulls an image)';
  if (/cannot connect to the docker daemon|is the docker daemon running|error during connect/i.test(stderr)) {
    return `no engine answers (start dockerd, or point DOCKER_HOST at one): ${firstLine(stderr)}`;
  }
  return firstLine(stderr) || `exit ${failure.exitCode ?? '?'}`;
}

function firstLine(text: string): string {
  return (text.split('\n').find((line) => line.trim() !== '') ?? '').trim().slice(0, 300);
}
