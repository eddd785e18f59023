import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newTaskMeta, type HarnessRequest } from '@orange/core';
import { execa } from 'execa';
import { agentCli } from '@orange/test-support';
import { describe, expect, it } from 'vitest';
import { codexArgv } from './codex.js';

/** Every option Orange passes after `exec`, in any role / respawn / effort / model combination. */
function flagsOrangePasses(): string[] {
  const task = newTaskMeta({ id: 'e'.repeat(21), project: 'demo', branch: 'x', status: 'working' });
  const flags = new Set<string>();
  for (const role of ['worker', 'reviewer'] as const) {
    for (const respawn of [false, true]) {
      const request: HarnessRequest = { task, role, prompt: 'p', respawn, effort: 'high', workspace: '/tmp' };
      const argv = codexArgv({ bin: 'codex', model: 'm', extraArgs: [] }, request, { orangeHome: '/h', gitCommonDir: '/g' });
      for (const arg of argv.slice(2, argv.indexOf('--'))) if (arg.startsWith('-')) flags.add(arg);
    }
  }
  return [...flags];
}

const cli = agentCli('codex');

describe('codex CLI contract', () => {
  it.skipIf(!cli)('every flag Orange passes appears in codex exec --help', async () => {
    // A throwaway CODEX_HOME: --help must not read or write the user's Codex config.
    const home = await mkdtemp(join(tmpdir(), 'orange-codex-help-'));
    try {
      await mkdir(join(home, '.codex'));
      const env = { HOME: home, CODEX_HOME: join(home, '.codex') };
      const { stdout } = await execa(cli as string, ['exec', '--help'], { env, timeout: 60_000 });
      const missing = flagsOrangePasses().filter((flag) => !new RegExp(`(^|[\\s,])${flag}([\\s,=<\\[]|$)`, 'm').test(stdout));
      expect(missing).toEqual([]);
      expect(stdout).toMatch(/workspace-write/);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  }, 90_000);

  it.skipIf(!cli)('takes a prompt starting with "-" as the prompt, echoing it before its first request', async () => {
    const home = await mkdtemp(join(tmpdir(), 'orange-codex-prompt-'));
    try {
      const ws = join(home, 'ws');
      await mkdir(join(home, '.codex'));
      await execa('git', ['init', '-q', ws]);
      const task = newTaskMeta({ id: 'e'.repeat(21), project: 'demo', branch: 'x', status: 'working' });
      const request: HarnessRequest = { task, role: 'worker', prompt: '-x fix the bug', respawn: false, effort: null, workspace: ws };
      // A provider whose key variable is unset: codex prints the prompt, then fails at the key, before any connection.
      const provider = ['-c', 'model_providers.orange-none={name="none",base_url="http://127.0.0.1:9/v1",wire_api="responses",env_key="ORANGE_NO_SUCH_KEY"}', '-c', 'model_provider=orange-none'];
      const argv = codexArgv({ bin: 'codex', extraArgs: provider }, request, { orangeHome: home, gitCommonDir: null });
      const run = await execa(cli as string, argv.slice(1), {
        cwd: ws,
        env: { PATH: process.env.PATH ?? '', HOME: home, CODEX_HOME: join(home, '.codex') },
        extendEnv: false,
        stdin: 'ignore',
        reject: false,
        all: true,
        timeout: 60_000,
      });
      expect(run.all, run.all).not.toMatch(/unexpected argument|No prompt provided/i);
      expect(run.stderr, run.all).toMatch(/^user\n-x fix the bug$/m);
      expect(run.all, run.all).toMatch(/Missing environment variable: `ORANGE_NO_SUCH_KEY`/);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  }, 90_000);
});
