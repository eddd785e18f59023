import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { findExecutable } from '@orange/core';

/**
 * The real agent CLI `bin` for a contract test: under `$ORANGE_AGENT_CLI_DIR` (the folder itself,
 * its `bin/`, or an npm prefix's `node_modules/.bin`), else on PATH. Null, with a warning saying
 * the test is skipped, when it is nowhere — except in CI (`CI` set), where a contract test that
 * cannot run is a failure: this throws, saying what is missing (.ci/run installs the CLIs).
 */
export function agentCli(bin: string, env: NodeJS.ProcessEnv = process.env): string | null {
  const dir = env.ORANGE_AGENT_CLI_DIR;
  if (dir) {
    for (const candidate of [join(dir, bin), join(dir, 'bin', bin), join(dir, 'node_modules', '.bin', bin)]) {
      if (existsSync(candidate)) return candidate;
    }
  }
  const found = findExecutable(bin, env.PATH ?? '');
  if (found) return found;
  const where = `${bin} is not on PATH and ORANGE_AGENT_CLI_DIR ${dir ? `(${dir}) does not hold it` : 'is not set'}`;
  if (env.CI) throw new Error(`CI: the ${bin} CLI contract test must run, but ${where} (.ci/run installs it; see its log)`);
  console.warn(`${bin} CLI contract test skipped: ${where}`);
  return null;
}
