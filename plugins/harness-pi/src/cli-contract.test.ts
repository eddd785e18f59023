import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newTaskMeta, type HarnessRequest, type HeadlessRequest } from '@orange/core';
import { execa } from 'execa';
import { agentCli } from '@orange/test-support';
import { describe, expect, it } from 'vitest';
import { piHeadlessArgv, piHeadlessResult } from './headless.js';
import { piAgentDir, piArgv } from './pi.js';
import { writeReviewerGuard } from './reviewer-guard.js';

const task = newTaskMeta({ id: 'f'.repeat(21), project: 'demo', branch: 'x', status: 'working' });

function headlessRequest(workspace: string): HeadlessRequest {
  return { task, prompt: 'p', workspace, model: 'sonnet', phase: 'classify', resultFile: join(workspace, 'result.json') };
}

/** Every option Orange passes, in any role / respawn / effort / model combination, and headless. */
function flagsOrangePasses(): string[] {
  const flags = new Set<string>();
  for (const role of ['worker', 'reviewer'] as const) {
    for (const respawn of [false, true]) {
      const request: HarnessRequest = { task, role, prompt: 'p', respawn, effort: 'high', workspace: '/tmp' };
      const argv = piArgv({ bin: 'pi', provider: 'anthropic', model: 'm', extraArgs: [] }, request);
      for (const arg of argv.slice(1, -1)) if (arg.startsWith('-')) flags.add(arg);
    }
  }
  for (const arg of piHeadlessArgv({ bin: 'pi', provider: 'anthropic', extraArgs: [] }, headlessRequest('/tmp')).slice(1, -1)) if (arg.startsWith('-')) flags.add(arg);
  return [...flags];
}

const cli = agentCli('pi');

/** Runs pi with a throwaway HOME and no API keys from this environment, so it reads and writes nothing of the user's. */
async function runPi(args: string[], home: string, input?: string): Promise<string> {
  const result = await execa(cli as string, args, {
    env: { PATH: process.env.PATH ?? '', HOME: home },
    extendEnv: false,
    ...(input === undefined ? { stdin: 'ignore' as const } : { input }),
    reject: false,
    all: true,
    timeout: 60_000,
  });
  return result.all ?? '';
}

async function withHome(run: (home: string) => Promise<void>): Promise<void> {
  const home = await mkdtemp(join(tmpdir(), 'orange-pi-cli-'));
  try {
    await run(home);
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

describe('pi CLI contract', () => {
  it.skipIf(!cli)('every flag Orange passes appears in pi --help, and the thinking levels include Orange’s efforts', async () => {
    await withHome(async (home) => {
      const help = await runPi(['--help'], home);
      const missing = flagsOrangePasses().filter((flag) => !new RegExp(`(^|[\\s,])${flag}([\\s,=<\\[]|$)`, 'm').test(help));
      expect(missing, help).toEqual([]);
      expect(help, help).toMatch(/--thinking <level>.*\blow\b.*\bmedium\b.*\bhigh\b/);
      expect(help, help).toMatch(/--mode <mode>.*\bjson\b/);
    });
  }, 90_000);

  it.skipIf(!cli)('reads a worker’s prompt starting with "-" or "@" as its message', async () => {
    await withHome(async (home) => {
      for (const prompt of ['-x fix the bug', '@notes.md fix the bug']) {
        const argv = piArgv({ bin: 'pi', extraArgs: [] }, { task, role: 'worker', prompt, respawn: false, effort: null, workspace: home });
        // --print stops after one turn and --offline skips start-up requests: with no API key pi
        // refuses at the model, after it took the prompt as a message (not an option or a file).
        const output = await runPi([...argv.slice(1, -1), '--offline', '--print', ...argv.slice(-1)], home);
        expect(output, output).not.toMatch(/Unknown option|File not found/);
        expect(output, output).toMatch(/No API key/);
      }
    });
  }, 90_000);

  it.skipIf(!cli)('finds a skill written under the harness’s skills directory', async () => {
    await withHome(async (home) => {
      const dir = join(piAgentDir({}, home), 'skills', 'orange');
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, 'SKILL.md'), '---\nname: orange\ndescription: Work inside an Orange task.\n---\n\n# Orange\n');
      // RPC mode answers get_commands (skills among them) and exits when its stdin ends.
      const output = await runPi(['--offline', '--no-session', '--mode', 'rpc'], home, '{"type":"get_commands"}\n');
      const response = output
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { command?: string; data?: { commands: Array<{ name: string; source: string; sourceInfo?: { path?: string } }> } })
        .find((record) => record.command === 'get_commands');
      const skill = response?.data?.commands.find((command) => command.name === 'skill:orange');
      expect(skill, output).toMatchObject({ source: 'skill', sourceInfo: { path: join(dir, 'SKILL.md') } });
    });
  }, 90_000);

  it.skipIf(!cli)('loads the reviewer guard extension', async () => {
    await withHome(async (home) => {
      const guard = await writeReviewerGuard(home);
      // Without an API key pi stops before any request, after loading its extensions.
      const output = await runPi(['--offline', '--extension', guard, '--print', 'p'], home);
      expect(output).not.toMatch(/Failed to load extension/);
      expect(output).toMatch(/No API key/);
    });
  }, 90_000);

  it.skipIf(!cli)('a headless run that cannot start reads as failed, with pi’s own reason', async () => {
    await withHome(async (home) => {
      const argv = piHeadlessArgv({ bin: cli as string, extraArgs: [] }, headlessRequest(home));
      const run = await execa(argv[0] as string, argv.slice(1), { cwd: home, env: { PATH: process.env.PATH ?? '', HOME: home }, extendEnv: false, stdin: 'ignore', reject: false, timeout: 60_000 });
      const result = piHeadlessResult({ exitCode: run.exitCode ?? 1, stdout: run.stdout, stderr: run.stderr, resultFile: null, model: 'sonnet' });
      expect(result, run.stdout + run.stderr).toMatchObject({ ok: false, output: expect.stringMatching(/No API key/) });
    });
  }, 90_000);
});
