import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newTaskMeta, type HarnessRequest, type HeadlessRequest } from '@orange/core';
import { execa } from 'execa';
import { agentCli } from '@orange/test-support';
import { describe, expect, it } from 'vitest';
import { geminiArgv, geminiDir } from './gemini.js';
import { geminiHeadlessArgv, geminiHeadlessResult } from './headless.js';
import { writeReviewerPolicy } from './reviewer-policy.js';

const task = newTaskMeta({ id: 'h'.repeat(21), project: 'demo', branch: 'x', status: 'working' });

function headlessRequest(workspace: string): HeadlessRequest {
  return { task, prompt: 'p', workspace, model: 'gemini-2.5-flash', phase: 'classify', resultFile: join(workspace, 'result.json') };
}

/** Every option Orange passes, in any role / respawn / effort / model combination, and headless. */
function flagsOrangePasses(): string[] {
  const flags = new Set<string>();
  for (const role of ['worker', 'reviewer'] as const) {
    for (const respawn of [false, true]) {
      const request: HarnessRequest = { task, role, prompt: 'p', respawn, effort: 'high', workspace: '/tmp' };
      const argv = geminiArgv({ bin: 'gemini', model: 'm', extraArgs: [] }, request);
      // The prompt is `--prompt-interactive=<text>` (headless: `--prompt=<text>`): the flag is the part before "=".
      for (const arg of argv.slice(1)) if (arg.startsWith('-')) flags.add(arg.split('=')[0] as string);
    }
  }
  for (const arg of geminiHeadlessArgv({ bin: 'gemini', extraArgs: [] }, headlessRequest('/tmp')).slice(1)) if (arg.startsWith('-')) flags.add(arg.split('=')[0] as string);
  return [...flags];
}

const cli = agentCli('gemini');

/** Runs gemini with a throwaway HOME and no credentials from this environment, so it stops before any request. */
async function runGemini(args: string[], home: string, cwd = home): Promise<string> {
  return (await runGeminiFully(args, home, cwd)).all;
}

async function runGeminiFully(args: string[], home: string, cwd = home): Promise<{ exitCode: number; stdout: string; stderr: string; all: string }> {
  const result = await execa(cli as string, args, {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: home },
    extendEnv: false,
    stdin: 'ignore',
    reject: false,
    all: true,
    timeout: 60_000,
  });
  return { exitCode: result.exitCode ?? 1, stdout: result.stdout, stderr: result.stderr, all: result.all ?? '' };
}

async function withHome<T>(run: (home: string) => Promise<T>): Promise<T> {
  const home = await mkdtemp(join(tmpdir(), 'orange-gemini-cli-'));
  try {
    return await run(home);
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

describe('gemini CLI contract', () => {
  it.skipIf(!cli)('every flag Orange passes appears in gemini --help, with the approval modes Orange uses', async () => {
    await withHome(async (home) => {
      const help = await runGemini(['--help'], home);
      const missing = flagsOrangePasses().filter((flag) => !new RegExp(`(^|[\\s,])${flag}([\\s,=<\\[]|$)`, 'm').test(help));
      expect(missing, help).toEqual([]);
      expect(help).toMatch(/--approval-mode[^\n]*"yolo"/);
      expect(help).toMatch(/--approval-mode[^\n]*"auto_edit"/);
      expect(help).toMatch(/--output-format[^\n]*"json"/);
    });
  }, 90_000);

  it.skipIf(!cli)('reads the worker’s prompt, one starting with "-" too, as its interactive prompt', async () => {
    await withHome(async (home) => {
      const request: HarnessRequest = { task, role: 'worker', prompt: '-x fix the bug', respawn: false, effort: null, workspace: home };
      const argv = geminiArgv({ bin: 'gemini', extraArgs: [] }, request, join(geminiDir({}, home), 'policies'));
      // The CLI refuses --prompt beside an interactive prompt while parsing, before any request:
      // the refusal proves the argv's prompt reached the parser as the prompt (after `--` it did not).
      const run = await runGeminiFully([...argv.slice(1, -1), '--prompt', 'p', ...argv.slice(-1)], home);
      expect(run.exitCode, run.all).not.toBe(0);
      expect(run.stderr, run.all).toMatch(/^Cannot use both --prompt \(-p\) and --prompt-interactive \(-i\) together$/m);
    });
  }, 90_000);

  it.skipIf(!cli)('loads the reviewer policy without a policy error', async () => {
    await withHome(async (home) => {
      const ws = join(home, 'ws');
      await mkdir(ws);
      await writeReviewerPolicy(ws);
      const request: HarnessRequest = { task, role: 'reviewer', prompt: 'p', respawn: false, effort: null, workspace: ws };
      const argv = geminiArgv({ bin: 'gemini', extraArgs: [] }, request, join(geminiDir({}, home), 'policies'));
      // Without credentials the CLI stops at authentication, after it has loaded its policies.
      // The prompt is left out: without a terminal on stdin the CLI refuses an interactive one first.
      const output = await runGemini(argv.slice(1, -1), home, ws);
      expect(output).not.toMatch(/policy file error|invalid policy/i);
      expect(output).toMatch(/auth method/i);
    });
  }, 90_000);

  it.skipIf(!cli)('finds a skill written under the harness’s skills directory', async () => {
    await withHome(async (home) => {
      const dir = join(geminiDir({}, home), 'skills', 'orange');
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, 'SKILL.md'), '---\nname: orange\ndescription: Work inside an Orange task.\n---\n\n# Orange\n');
      const output = await runGemini(['skills', 'list'], home);
      expect(output).toMatch(/^orange\b/m);
      expect(output).toContain(join(dir, 'SKILL.md'));
    });
  }, 90_000);

  it.skipIf(!cli)('a headless run without credentials reads as failed, with the CLI’s JSON error', async () => {
    await withHome(async (home) => {
      const argv = geminiHeadlessArgv({ bin: 'gemini', extraArgs: [] }, headlessRequest(home));
      const run = await runGeminiFully(argv.slice(1), home);
      const result = geminiHeadlessResult({ ...run, resultFile: null, model: null });
      expect(result, run.all).toMatchObject({ ok: false, output: expect.stringMatching(/auth method/i) });
    });
  }, 90_000);
});
