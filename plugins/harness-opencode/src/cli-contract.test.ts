import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newTaskMeta, type HarnessRequest, type HeadlessRequest } from '@orange/core';
import { execa } from 'execa';
import { agentCli } from '@orange/test-support';
import { describe, expect, it } from 'vitest';
import { opencodeHeadlessArgv, opencodeHeadlessResult } from './headless.js';
import { opencodeArgv, opencodeConfigDir } from './opencode.js';
import { reviewerConfigContent, writeOpencodeConfig } from './opencode-config.js';

function headlessRequest(workspace: string, model: string): HeadlessRequest {
  const task = newTaskMeta({ id: 'g'.repeat(21), project: 'demo', branch: 'x', status: 'working' });
  return { task, prompt: 'p', workspace, model, phase: 'classify', resultFile: join(workspace, 'result.json') };
}

/** Every option Orange passes after `run`, in any role / respawn / effort / model combination, and headless. */
function flagsOrangePasses(): string[] {
  const task = newTaskMeta({ id: 'g'.repeat(21), project: 'demo', branch: 'x', status: 'working' });
  const flags = new Set<string>();
  for (const role of ['worker', 'reviewer'] as const) {
    for (const respawn of [false, true]) {
      const request: HarnessRequest = { task, role, prompt: 'p', respawn, effort: 'high', workspace: '/tmp' };
      const argv = opencodeArgv({ bin: 'opencode', model: 'a/b', agent: 'build', extraArgs: [] }, request);
      for (const arg of argv.slice(2, argv.indexOf('--'))) if (arg.startsWith('-')) flags.add(arg);
    }
  }
  const headless = opencodeHeadlessArgv({ bin: 'opencode', agent: 'build', extraArgs: [] }, headlessRequest('/tmp', 'a/b'));
  for (const arg of headless.slice(2, headless.indexOf('--'))) if (arg.startsWith('-')) flags.add(arg);
  return [...flags];
}

const cli = agentCli('opencode');

/** Runs opencode with a throwaway HOME (its config, data and cache go there) and nothing else from this environment. */
async function runOpencode(args: string[], options: { home: string; cwd?: string; env?: Record<string, string> }): Promise<{ exitCode: number | undefined; stdout: string; all: string }> {
  const result = await execa(cli as string, args, {
    cwd: options.cwd ?? options.home,
    env: { PATH: process.env.PATH ?? '', HOME: options.home, OPENCODE_DISABLE_AUTOUPDATE: '1', OPENCODE_DISABLE_MODELS_FETCH: '1', ...options.env },
    extendEnv: false,
    stdin: 'ignore',
    reject: false,
    all: true,
    timeout: 60_000,
  });
  return { exitCode: result.exitCode, stdout: result.stdout, all: result.all ?? '' };
}

async function withHome<T>(run: (home: string) => Promise<T>): Promise<T> {
  const home = await mkdtemp(join(tmpdir(), 'orange-opencode-cli-'));
  try {
    return await run(home);
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

describe('opencode CLI contract', () => {
  it.skipIf(!cli)('every flag Orange passes appears in opencode run --help', async () => {
    await withHome(async (home) => {
      const { all } = await runOpencode(['run', '--help'], { home });
      const missing = flagsOrangePasses().filter((flag) => !new RegExp(`(^|[\\s,])${flag}([\\s,=<\\[]|$)`, 'm').test(all));
      expect(missing, all).toEqual([]);
      // yargs may wrap the choices onto the next line.
      expect(all).toMatch(/--format[^\n]*\n?[^\n]*choices: [^\n]*"json"/);
    });
  }, 90_000);

  it.skipIf(!cli)('takes a worker’s prompt starting with "-" as its message, quoted as opencode quotes one with spaces', async () => {
    await withHome(async (home) => {
      const ws = join(home, 'ws');
      await mkdir(ws);
      await execa('git', ['init', '-q', ws]);
      const task = newTaskMeta({ id: 'g'.repeat(21), project: 'demo', branch: 'x', status: 'working' });
      const request: HarnessRequest = { task, role: 'worker', prompt: '-x fix "it"', respawn: false, effort: null, workspace: ws };
      // A model of no provider fails the run after opencode stored the message and before any request.
      const argv = opencodeArgv({ bin: 'opencode', model: 'orange-none/no-such-model', extraArgs: [] }, request);
      const run = await runOpencode(argv.slice(1), { home, cwd: ws });
      expect(run.all).not.toMatch(/You must provide a message/);
      const sessions = JSON.parse((await runOpencode(['session', 'list', '--format', 'json'], { home, cwd: ws })).stdout) as Array<{ id: string }>;
      expect(sessions, run.all).toHaveLength(1);
      const exported = (await runOpencode(['export', sessions[0]!.id], { home, cwd: ws })).stdout;
      const session = JSON.parse(exported.slice(exported.indexOf('{'))) as { messages: Array<{ info: { role: string }; parts: Array<{ type: string; text?: string }> }> };
      const sent = session.messages.filter((m) => m.info.role === 'user').flatMap((m) => m.parts.filter((part) => part.type === 'text').map((part) => part.text));
      // docs/plugins/opencode.md: an argument with a space reaches the model in double quotes, its own quotes escaped.
      expect(sent, exported).toEqual(['"-x fix \\"it\\""']);
    });
  }, 90_000);

  it.skipIf(!cli)('reads Orange’s opencode.json and the reviewer’s inline config as permission rules, Orange’s last', async () => {
    await withHome(async (home) => {
      const ws = join(home, 'ws');
      await mkdir(ws);
      await execa('git', ['init', '-q', ws]);
      await writeFile(join(ws, 'opencode.json'), JSON.stringify({ permission: { bash: { '*': 'ask' } } }));
      await writeOpencodeConfig(ws, { agentDir: '/orange/tasks/demo/t1/agent' });
      const { exitCode, stdout, all } = await runOpencode(['debug', 'config'], { home, cwd: ws, env: { OPENCODE_CONFIG_CONTENT: reviewerConfigContent(undefined) } });
      expect(exitCode, all).toBe(0);
      const config = JSON.parse(stdout) as { permission: Record<string, Record<string, string>> };
      expect(config.permission.external_directory).toEqual({ '/orange/tasks/demo/t1/agent/**': 'allow' });
      expect(Object.entries(config.permission.bash!)).toEqual([
        ['*', 'ask'],
        ['orange *', 'allow'],
        ['gh pr review*', 'deny'],
        ['gh pr comment*', 'deny'],
      ]);
    });
  }, 90_000);

  it.skipIf(!cli)('finds a skill written under the harness’s skills directory', async () => {
    await withHome(async (home) => {
      const dir = join(opencodeConfigDir({}, home), 'skills', 'orange');
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, 'SKILL.md'), '---\nname: orange\ndescription: Work inside an Orange task.\n---\n\n# Orange\n');
      const { exitCode, stdout, all } = await runOpencode(['debug', 'skill'], { home });
      expect(exitCode, all).toBe(0);
      const skills = JSON.parse(stdout) as Array<{ name: string; location: string }>;
      expect(skills.find((s) => s.name === 'orange')?.location, all).toBe(join(dir, 'SKILL.md'));
    });
  }, 90_000);

  it.skipIf(!cli)('a headless run with an unknown model reads as failed, with opencode’s error event', async () => {
    await withHome(async (home) => {
      const ws = join(home, 'ws');
      await mkdir(ws);
      await execa('git', ['init', '-q', ws]);
      const argv = opencodeHeadlessArgv({ bin: cli as string, extraArgs: [] }, headlessRequest(ws, 'orange-none/no-such-model'));
      const run = await runOpencode(argv.slice(1), { home, cwd: ws });
      const result = opencodeHeadlessResult({ exitCode: run.exitCode ?? 1, stdout: run.stdout, stderr: '', resultFile: null, model: null });
      expect(result.ok, run.all).toBe(false);
      expect(run.stdout.split('\n').some((line) => line.startsWith('{"type":"error"')), run.all).toBe(true);
      expect(result.output, run.all).toMatch(/\S/);
    });
  }, 90_000);
});
