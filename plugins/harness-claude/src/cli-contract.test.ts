import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newTaskMeta, type HarnessRequest } from '@orange/core';
import { execa } from 'execa';
import { agentCli } from '@orange/test-support';
import { describe, expect, it } from 'vitest';
import { claudeArgv } from './claude.js';

/** Every option Orange passes, in any role / respawn / effort / model combination. */
function flagsOrangePasses(): string[] {
  const task = newTaskMeta({ id: 'd'.repeat(21), project: 'demo', branch: 'x', status: 'working' });
  const flags = new Set<string>();
  for (const role of ['worker', 'reviewer'] as const) {
    for (const respawn of [false, true]) {
      const request: HarnessRequest = { task, role, prompt: 'p', respawn, effort: 'high', workspace: '/tmp' };
      const argv = claudeArgv({ bin: 'claude', model: 'sonnet', extraArgs: [] }, request);
      for (const arg of argv.slice(1, argv.indexOf('--'))) if (arg.startsWith('-')) flags.add(arg);
    }
  }
  return [...flags];
}

const cli = agentCli('claude');

describe('claude CLI contract', () => {
  it.skipIf(!cli)('every flag Orange passes appears in claude --help', async () => {
    // A throwaway HOME: --help must not read or write the user's Claude config.
    const home = await mkdtemp(join(tmpdir(), 'orange-claude-help-'));
    try {
      const { stdout } = await execa(cli as string, ['--help'], { env: { HOME: home }, timeout: 60_000 });
      const missing = flagsOrangePasses().filter((flag) => !new RegExp(`(^|[\\s,])${flag}([\\s,=<\\[]|$)`, 'm').test(stdout));
      expect(missing).toEqual([]);
      // acceptEdits must still be one of the permission modes.
      expect(stdout).toMatch(/"acceptEdits"/);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  }, 90_000);

  it.skipIf(!cli)('takes a prompt starting with "-" as the prompt, after the reviewer’s variadic --disallowedTools', async () => {
    const home = await mkdtemp(join(tmpdir(), 'orange-claude-prompt-'));
    try {
      const task = newTaskMeta({ id: 'd'.repeat(21), project: 'demo', branch: 'x', status: 'working' });
      // Respawned: --dangerously-skip-permissions is refused outright when the tests run as root.
      const request: HarnessRequest = { task, role: 'reviewer', prompt: '-x fix the bug', respawn: true, effort: null, workspace: home };
      const argv = claudeArgv({ bin: 'claude', extraArgs: [] }, request);
      const end = argv.indexOf('--');
      // --print ends the run after one turn; with no login it refuses before any request, but only
      // once it has a prompt (without one: "Input must be provided …").
      const run = await execa(cli as string, [...argv.slice(1, end), '--print', ...argv.slice(end)], {
        cwd: home,
        env: { PATH: process.env.PATH ?? '', HOME: home, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' },
        extendEnv: false,
        stdin: 'ignore',
        reject: false,
        all: true,
        timeout: 60_000,
      });
      expect(run.all, run.all).not.toMatch(/unknown option|Input must be provided/i);
      expect(run.all, run.all).toMatch(/Not logged in/);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  }, 90_000);
});
