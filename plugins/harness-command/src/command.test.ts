import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { headlessRunEnv, Orange, OrangePaths, newTaskMeta, noopActions, type Harness, type HarnessRequest } from '@orange/core';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { command, commandHeadlessResult } from './index.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'orange-command-'));
  dirs.push(dir);
  return dir;
}

async function harnessesOf(...plugins: ReturnType<typeof command>[]): Promise<Map<string, Harness>> {
  const home = await tempDir();
  const orange = await Orange.create({ defaults: false, plugins: [noopActions(), ...plugins] }, { paths: new OrangePaths(home) });
  return orange.harnesses;
}

function request(overrides: Partial<HarnessRequest> = {}): HarnessRequest {
  const task = newTaskMeta({ id: 'a'.repeat(21), project: 'demo', branch: 'feat/x', status: 'working', review_round: 1 });
  return { task, role: 'worker', prompt: 'do it', respawn: false, effort: null, workspace: '/tmp/ws', ...overrides };
}

describe('command harness', () => {
  it('substitutes every placeholder inside argv elements', async () => {
    const h = (await harnessesOf(command({ worker: ['agent', '--msg={prompt}', '{task_id}', '{project}/{branch}', '{role}:{status}:{review_round}', '{workspace}'] }))).get('command')!;
    expect(h.command(request()).argv).toEqual(['agent', '--msg=do it', 'a'.repeat(21), 'demo/feat/x', 'worker:working:1', '/tmp/ws']);
  });

  it('does not substitute placeholders that appear inside the prompt text', async () => {
    const h = (await harnessesOf(command({ worker: ['agent', '{prompt}', '{branch}'] }))).get('command')!;
    expect(h.command(request({ prompt: 'mention {branch} and {unknown}' })).argv).toEqual(['agent', 'mention {branch} and {unknown}', 'feat/x']);
  });

  it('uses the reviewer argv for reviewers and the worker argv when none is given', async () => {
    const both = (await harnessesOf(command({ worker: ['w', '{prompt}'], reviewer: ['r', '{prompt}'] }))).get('command')!;
    expect(both.command(request({ role: 'reviewer' })).argv).toEqual(['r', 'do it']);
    const one = (await harnessesOf(command({ worker: ['w', '{role}'] }))).get('command')!;
    expect(one.command(request({ role: 'reviewer' })).argv).toEqual(['w', 'reviewer']);
  });

  it('passes its env option to the agent', async () => {
    const h = (await harnessesOf(command({ worker: ['w'], env: { AIDER_MODEL: 'x' } }))).get('command')!;
    expect(h.command(request()).env).toEqual({ AIDER_MODEL: 'x' });
  });

  it('registers several command harnesses under their own names', async () => {
    const harnesses = await harnessesOf(command({ name: 'aider', worker: ['aider', '--message', '{prompt}'] }), command({ name: 'script', worker: ['/bin/true'] }));
    expect([...harnesses.keys()]).toEqual(['aider', 'script']);
  });

  it('runs shell metacharacters in the prompt literally, never through a shell', async () => {
    const dir = await tempDir();
    const script = join(dir, 'agent.sh');
    const out = join(dir, 'args.txt');
    await writeFile(script, `#!/bin/sh\nfor a in "$@"; do printf '%s\\n' "$a"; done > "${out}"\n`);
    await chmod(script, 0o755);
    const h = (await harnessesOf(command({ worker: [script, '{prompt}'] }))).get('command')!;
    const evil = `x; touch ${join(dir, 'pwned')} $(touch ${join(dir, 'pwned2')}) \`id\``;
    const { argv } = h.command(request({ prompt: evil }));
    await execa(argv[0]!, argv.slice(1));
    expect(await readFile(out, 'utf8')).toBe(`${evil}\n`);
    expect(existsSync(join(dir, 'pwned'))).toBe(false);
    expect(existsSync(join(dir, 'pwned2'))).toBe(false);
  });

  it('is installed only when argv[0] resolves to an executable', async () => {
    const harnesses = await harnessesOf(
      command({ name: 'abs', worker: ['/bin/sh', '-c', 'true'] }),
      command({ name: 'onpath', worker: ['sh'] }),
      command({ name: 'missing', worker: ['/nonexistent/agent'] }),
      command({ name: 'missing-reviewer', worker: ['sh'], reviewer: ['no-such-agent-xyz'] }),
    );
    expect(await harnesses.get('abs')!.installed()).toBe(true);
    expect(await harnesses.get('onpath')!.installed()).toBe(true);
    expect(await harnesses.get('missing')!.installed()).toBe(false);
    expect(await harnesses.get('missing-reviewer')!.installed()).toBe(false);
  });

  it('without a worker argv is not installed and refuses to start an agent with a clear sentence', async () => {
    const h = (await harnessesOf(command())).get('command')!;
    expect(await h.installed()).toBe(false);
    expect(() => h.command(request())).toThrow(/the command harness has no command configured/);
  });

  it('refuses bad options naming the plugin and the field', () => {
    expect(() => command({ worker: [] })).toThrow(/plugin command: option "worker"/);
    expect(() => command({ worker: ['a'], name: '../x' })).toThrow(/option "name"/);
    expect(() => command({ worker: ['a'], shell: true } as never)).toThrow(/plugin command/);
  });
});

describe('command harness, headless runs', () => {
  it('has no headless runner unless a headless argv is configured', async () => {
    expect((await harnessesOf(command({ worker: ['w'] }))).get('command')!.headless).toBeUndefined();
  });

  it('substitutes model, phase and result file besides the other placeholders', async () => {
    const h = (await harnessesOf(command({ headless: ['agent', '{phase}', '{model}', '{result_file}', '{task_id}', '{prompt}'], tiers: ['small', 'big'] }))).get('command')!;
    const task = request().task;
    expect(h.headless!.tiers).toEqual(['small', 'big']);
    expect(h.headless!.command({ task, prompt: 'p {model}', workspace: '/w', model: 'big', phase: 'fix', resultFile: '/r.json' }).argv).toEqual([
      'agent', 'fix', 'big', '/r.json', 'a'.repeat(21), 'p {model}',
    ]);
  });

  it("gives every placeholder of a headless argv the value of the run's variable ($ORANGE_PROMPT, …), {model} empty for the default model as $ORANGE_MODEL is", async () => {
    const names = ['prompt', 'status', 'phase', 'model', 'result_file', 'branch', 'role', 'review_round'];
    const h = (await harnessesOf(command({ headless: ['agent', ...names.map((n) => `{${n}}`)] }))).get('command')!;
    const task = { ...request().task, status: 'executing' };
    for (const model of ['big', null]) {
      const run = { task, prompt: 'Run phase fix.\nThe previous attempt failed: tests fail', workspace: '/w', model, phase: 'fix', resultFile: '/r.json' };
      const env = headlessRunEnv(run);
      expect(h.headless!.command(run).argv).toEqual(['agent', ...names.map((n) => env[`ORANGE_${n.toUpperCase()}` as keyof typeof env])]);
      expect(env).toMatchObject({ ORANGE_PROMPT: run.prompt, ORANGE_STATUS: 'executing', ORANGE_PHASE: 'fix', ORANGE_MODEL: model ?? '', ORANGE_RESULT_FILE: '/r.json' });
    }
  });

  it('reads ok, cost and data from the result file, else from the exit code and stdout', () => {
    expect(commandHeadlessResult({ exitCode: 0, stdout: 'x', stderr: '', resultFile: '{"ok":false,"cost_usd":0.3,"output":"tests fail","intent":"bugfix"}', model: null })).toEqual({
      ok: false, output: 'tests fail', costUsd: 0.3, data: { intent: 'bugfix' },
    });
    expect(commandHeadlessResult({ exitCode: 0, stdout: 'all good\n', stderr: '', resultFile: null, model: null })).toEqual({ ok: true, output: 'all good', costUsd: 0, data: {} });
    expect(commandHeadlessResult({ exitCode: 2, stdout: '', stderr: 'boom', resultFile: null, model: null })).toMatchObject({ ok: false, output: 'boom' });
  });
});
