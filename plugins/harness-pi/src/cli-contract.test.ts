import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newTaskMeta, type HarnessRequest, findExecutable } from '@orange/core';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { piArgv } from './pi.js';
import { writeReviewerGuard } from './reviewer-guard.js';

/** The real CLI: on PATH, or under $ORANGE_AGENT_CLI_DIR (a dir, its bin/, or an npm prefix). */
function locateCli(bin: string): string | null {
  const dir = process.env.ORANGE_AGENT_CLI_DIR;
  if (dir) {
    for (const candidate of [join(dir, bin), join(dir, 'bin', bin), join(dir, 'node_modules', '.bin', bin)]) {
      if (existsSync(candidate)) return candidate;
    }
  }
  return findExecutable(bin);
}

/** Every option Orange passes, in any role / respawn / effort / model combination. */
function flagsOrangePasses(): string[] {
  const task = newTaskMeta({ id: 'f'.repeat(21), project: 'demo', branch: 'x', status: 'working' });
  const flags = new Set<string>();
  for (const role of ['worker', 'reviewer'] as const) {
    for (const respawn of [false, true]) {
      const request: HarnessRequest = { task, role, prompt: 'p', respawn, effort: 'high', workspace: '/tmp' };
      const argv = piArgv({ bin: 'pi', provider: 'anthropic', model: 'm', extraArgs: [] }, request);
      for (const arg of argv.slice(1, -1)) if (arg.startsWith('-')) flags.add(arg);
    }
  }
  return [...flags];
}

const cli = locateCli('pi');
if (!cli) console.warn('pi CLI contract test skipped: pi is not on PATH and ORANGE_AGENT_CLI_DIR does not hold it');

/** Runs pi with a throwaway HOME and no API keys from this environment, so it reads and writes nothing of the user's. */
async function runPi(args: string[], home: string): Promise<string> {
  const result = await execa(cli as string, args, {
    env: { PATH: process.env.PATH ?? '', HOME: home },
    extendEnv: false,
    stdin: 'ignore',
    reject: false,
    all: true,
    timeout: 60_000,
  });
  return result.all ?? '';
}

describe('pi CLI contract', () => {
  it.skipIf(!cli)('every flag Orange passes appears in pi --help, and the thinking levels include Orange’s efforts', async () => {
    const home = await mkdtemp(join(tmpdir(), 'orange-pi-help-'));
    try {
      const help = await runPi(['--help'], home);
      const missing = flagsOrangePasses().filter((flag) => !new RegExp(`(^|[\\s,])${flag}([\\s,=<\\[]|$)`, 'm').test(help));
      expect(missing, help).toEqual([]);
      expect(help, help).toMatch(/--thinking <level>.*\blow\b.*\bmedium\b.*\bhigh\b/);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  }, 90_000);

  it.skipIf(!cli)('loads the reviewer guard extension', async () => {
    const home = await mkdtemp(join(tmpdir(), 'orange-pi-guard-'));
    try {
      const guard = await writeReviewerGuard(home);
      // Without an API key pi stops before any request, after loading its extensions.
      const output = await runPi(['--offline', '--extension', guard, '--print', 'p'], home);
      expect(output).not.toMatch(/Failed to load extension/);
      expect(output).toMatch(/No API key/);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  }, 90_000);
});
