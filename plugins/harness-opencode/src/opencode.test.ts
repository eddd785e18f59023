import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Orange, OrangePaths, newTaskMeta, noopActions, type Harness, type HarnessRequest } from '@orange/core';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { opencode, opencodeConfigDir, reviewerConfigContent } from './index.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'orange-opencode-'));
  dirs.push(dir);
  return dir;
}

async function harness(plugin = opencode()): Promise<{ h: Harness; home: string }> {
  const home = await tempDir();
  const orange = await Orange.create({ defaults: false, plugins: [noopActions(), plugin] }, { paths: new OrangePaths(home) });
  return { h: orange.harnesses.get('opencode')!, home };
}

const ID = 'o'.repeat(21);
function request(overrides: Partial<HarnessRequest> = {}): HarnessRequest {
  const task = newTaskMeta({ id: ID, project: 'demo', branch: 'feat/x', status: 'working' });
  return { task, role: 'worker', prompt: 'do the task', respawn: false, effort: null, workspace: '/tmp/ws', ...overrides };
}

async function readConfig(ws: string): Promise<unknown> {
  return JSON.parse(await readFile(join(ws, 'opencode.json'), 'utf8'));
}

describe('opencode harness', () => {
  it('runs a worker with opencode run, auto-approving, the prompt after --', async () => {
    const { h } = await harness();
    expect(h.command(request())).toEqual({ argv: ['opencode', 'run', '--auto', '--', 'do the task'] });
  });

  it('passes the model, the agent, the effort as the model variant, bin and extra arguments', async () => {
    const { h } = await harness(opencode({ bin: '/opt/opencode', model: 'anthropic/claude-sonnet-4-5', agent: 'build', extraArgs: ['--print-logs'] }));
    expect(h.command(request({ effort: 'high' })).argv).toEqual([
      '/opt/opencode',
      'run',
      '--auto',
      '--model',
      'anthropic/claude-sonnet-4-5',
      '--agent',
      'build',
      '--variant',
      'high',
      '--print-logs',
      '--',
      'do the task',
    ]);
  });

  it('keeps a prompt starting with a dash as the prompt', async () => {
    const { h } = await harness();
    expect(h.command(request({ prompt: '--help me' })).argv.slice(-2)).toEqual(['--', '--help me']);
  });

  it('respawns without --auto, so only what opencode.json allows runs unasked', async () => {
    const { h } = await harness();
    expect(h.command(request({ respawn: true })).argv).toEqual(['opencode', 'run', '--', 'do the task']);
  });

  it('denies gh pr review and gh pr comment to reviewers through inline config', async () => {
    const { h } = await harness();
    const command = h.command(request({ role: 'reviewer' }));
    expect(command.argv).toEqual(['opencode', 'run', '--auto', '--', 'do the task']);
    expect(JSON.parse(command.env!.OPENCODE_CONFIG_CONTENT!)).toEqual({ permission: { bash: { 'gh pr review*': 'deny', 'gh pr comment*': 'deny' } } });
    expect(h.command(request()).env).toBeUndefined();
  });

  it('merges the reviewer denies into inline config already set, keeping its rules', () => {
    const inherited = JSON.stringify({ model: 'x/y', permission: { bash: 'ask', edit: 'deny' } });
    expect(JSON.parse(reviewerConfigContent(inherited))).toEqual({
      model: 'x/y',
      permission: { edit: 'deny', bash: { '*': 'ask', 'gh pr review*': 'deny', 'gh pr comment*': 'deny' } },
    });
    expect(JSON.parse(reviewerConfigContent('not json'))).toEqual({ permission: { bash: { 'gh pr review*': 'deny', 'gh pr comment*': 'deny' } } });
  });

  it('writes opencode.json allowing orange and the agent folder of the task', async () => {
    const { h, home } = await harness();
    const ws = await tempDir();
    await h.prepare!(ws, request({ workspace: ws }));
    expect(await readConfig(ws)).toEqual({
      permission: { bash: { 'orange *': 'allow' }, external_directory: { [`${join(home, 'tasks', 'demo', ID, 'agent')}/**`]: 'allow' } },
    });
  });

  it('merges into an existing opencode.json keeping the user rules, Orange’s last, and stays stable when run twice', async () => {
    const { h, home } = await harness();
    const ws = await tempDir();
    const user = { model: 'a/b', permission: { bash: { 'orange *': 'deny', 'npm *': 'allow' }, edit: 'ask', external_directory: 'deny' } };
    await writeFile(join(ws, 'opencode.json'), JSON.stringify(user));
    await h.prepare!(ws, request({ workspace: ws }));
    await h.prepare!(ws, request({ workspace: ws }));
    const config = (await readConfig(ws)) as { permission: Record<string, Record<string, string>> };
    expect(config).toEqual({
      model: 'a/b',
      permission: {
        bash: { 'npm *': 'allow', 'orange *': 'allow' },
        edit: 'ask',
        external_directory: { '*': 'deny', [`${join(home, 'tasks', 'demo', ID, 'agent')}/**`]: 'allow' },
      },
    });
    // opencode applies the last matching rule: Orange's come after the user's.
    expect(Object.keys(config.permission.bash!)).toEqual(['npm *', 'orange *']);
  });

  it('turns a top-level permission action into the wildcard rule', async () => {
    const { h, home } = await harness();
    const ws = await tempDir();
    await writeFile(join(ws, 'opencode.json'), JSON.stringify({ permission: 'ask' }));
    await h.prepare!(ws, request({ workspace: ws }));
    expect(await readConfig(ws)).toEqual({
      permission: { '*': 'ask', bash: { 'orange *': 'allow' }, external_directory: { [`${join(home, 'tasks', 'demo', ID, 'agent')}/**`]: 'allow' } },
    });
  });

  it('leaves an opencode.json that the repository tracks untouched', async () => {
    const { h } = await harness();
    const ws = await tempDir();
    await execa('git', ['init', '-q', ws]);
    await writeFile(join(ws, 'opencode.json'), '{ "model": "a/b" }\n');
    await execa('git', ['-C', ws, 'add', 'opencode.json']);
    await h.prepare!(ws, request({ workspace: ws }));
    expect(await readFile(join(ws, 'opencode.json'), 'utf8')).toBe('{ "model": "a/b" }\n');
  });

  it('refuses to overwrite an opencode.json that is not valid JSON', async () => {
    const { h } = await harness();
    const ws = await tempDir();
    await writeFile(join(ws, 'opencode.json'), '{ // comment\n}');
    await expect(h.prepare!(ws, request({ workspace: ws }))).rejects.toMatchObject({ code: 'E_HARNESS', message: expect.stringContaining('is not valid JSON') });
    expect(await readFile(join(ws, 'opencode.json'), 'utf8')).toBe('{ // comment\n}');
  });

  it('hides .opencode/ and opencode.json from git and installs skills under opencode’s config dir', async () => {
    const { h } = await harness();
    expect(h.excludes).toEqual(['.opencode/', 'opencode.json']);
    expect(h.skillsDir).toBe(join(opencodeConfigDir(), 'skills'));
    expect(opencodeConfigDir({}, '/home/u')).toBe('/home/u/.config/opencode');
    expect(opencodeConfigDir({ XDG_CONFIG_HOME: '/xdg' }, '/home/u')).toBe('/xdg/opencode');
    if (!process.env.XDG_CONFIG_HOME) expect(h.skillsDir).toBe(join(homedir(), '.config', 'opencode', 'skills'));
  });

  it('is installed only when its binary is on PATH', async () => {
    expect(await (await harness(opencode({ bin: 'no-such-opencode-xyz' }))).h.installed()).toBe(false);
    expect(await (await harness(opencode({ bin: 'sh' }))).h.installed()).toBe(true);
  });

  it('offers headless runs on its tiers, falling back to the model option when a run names none', async () => {
    const { h } = await harness(opencode({ model: 'a/strong', tiers: ['a/cheap', 'a/strong'] }));
    const headless = { task: request().task, prompt: 'p', workspace: '/tmp/ws', phase: 'classify', resultFile: '/tmp/r.json' };
    expect(h.headless!.tiers).toEqual(['a/cheap', 'a/strong']);
    expect(h.headless!.command({ ...headless, model: null }).argv).toEqual(['opencode', 'run', '--format', 'json', '--auto', '--model', 'a/strong', '--', 'p']);
    expect(h.headless!.command({ ...headless, model: 'a/cheap' }).argv).toContain('a/cheap');
  });

  it('refuses unknown options naming the plugin and the field', () => {
    expect(() => opencode({ modle: 'x' } as never)).toThrow(/plugin opencode/);
    expect(() => opencode({ agent: '' })).toThrow(/plugin opencode: option "agent"/);
  });
});
