import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Orange, OrangePaths, newTaskMeta, noopActions, type Harness, type HarnessRequest } from '@orange/core';
import { git } from '@orange/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { codex } from './index.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'orange-codex-'));
  dirs.push(dir);
  return dir;
}

async function harness(plugin = codex()): Promise<{ h: Harness; home: string }> {
  const home = await tempDir();
  const orange = await Orange.create({ defaults: false, plugins: [noopActions(), plugin] }, { paths: new OrangePaths(home) });
  return { h: orange.harnesses.get('codex')!, home };
}

function request(overrides: Partial<HarnessRequest> = {}): HarnessRequest {
  const task = newTaskMeta({ id: 'c'.repeat(21), project: 'demo', branch: 'feat/x', status: 'working' });
  return { task, role: 'worker', prompt: 'do the task', respawn: false, effort: null, workspace: '/nonexistent/ws', ...overrides };
}

describe('codex harness', () => {
  it('runs workers and reviewers with approvals and sandbox bypassed', async () => {
    const { h } = await harness();
    const expected = ['codex', 'exec', '--dangerously-bypass-approvals-and-sandbox', '--', 'do the task'];
    expect(h.command(request()).argv).toEqual(expected);
    expect(h.command(request({ role: 'reviewer' })).argv).toEqual(expected);
  });

  it('respawns sandboxed to the worktree, with ORANGE_HOME and the repository git dir writable', async () => {
    const { h, home } = await harness();
    const repo = await tempDir();
    await git(repo, 'init', '-q', '-b', 'main');
    await writeFile(join(repo, 'a.txt'), 'a');
    await git(repo, 'add', '.');
    await git(repo, 'commit', '-qm', 'init');
    const ws = join(await tempDir(), 'ws');
    await git(repo, 'worktree', 'add', '-q', '--detach', ws);
    const argv = h.command(request({ respawn: true, workspace: ws })).argv;
    expect(argv).toEqual(['codex', 'exec', '--sandbox', 'workspace-write', '--add-dir', home, '--add-dir', join(repo, '.git'), '--', 'do the task']);
    expect(argv).not.toContain('--dangerously-bypass-approvals-and-sandbox');
  });

  it('respawns without a git dir when the workspace is not a linked worktree', async () => {
    const { h, home } = await harness();
    expect(h.command(request({ respawn: true })).argv).toEqual(['codex', 'exec', '--sandbox', 'workspace-write', '--add-dir', home, '--', 'do the task']);
  });

  it('passes the model, the reasoning effort as a config override, and extra arguments', async () => {
    const { h } = await harness(codex({ bin: '/opt/codex', model: 'gpt-5-codex', extraArgs: ['--skip-git-repo-check'] }));
    expect(h.command(request({ effort: 'high' })).argv).toEqual([
      '/opt/codex',
      'exec',
      '--dangerously-bypass-approvals-and-sandbox',
      '--model',
      'gpt-5-codex',
      '--config',
      'model_reasoning_effort="high"',
      '--skip-git-repo-check',
      '--',
      'do the task',
    ]);
  });

  it('hides .codex/ from git and installs skills under ~/.codex/skills', async () => {
    const { h } = await harness();
    expect(h.excludes).toEqual(['.codex/']);
    expect(h.skillsDir).toBe(join(homedir(), '.codex', 'skills'));
    expect(h.prepare).toBeUndefined();
  });

  it('is installed only when its binary is on PATH', async () => {
    expect(await (await harness(codex({ bin: 'no-such-codex-xyz' }))).h.installed()).toBe(false);
    expect(await (await harness(codex({ bin: 'sh' }))).h.installed()).toBe(true);
  });

  it('says which models it can price (a run of any other counts $0), and prices a run without a tier as the configured model', async () => {
    const { h } = await harness(codex({ model: 'gpt-5-codex', prices: { 'gpt-5-codex': { input: 1, output: 10 } } }));
    expect(h.headless?.canPrice?.('gpt-5-codex')).toBe(true);
    expect(h.headless?.canPrice?.('gpt-5')).toBe(false);
    expect(h.headless?.canPrice?.(null)).toBe(true);
    const stdout = JSON.stringify({ type: 'turn.completed', usage: { input_tokens: 1_000_000, output_tokens: 0 } });
    expect(h.headless?.result({ exitCode: 0, stdout, stderr: '', resultFile: null, model: null }).costUsd).toBe(1);
    const { h: unpriced } = await harness(codex());
    expect(unpriced.headless?.canPrice?.(null)).toBe(false);
  });

  it('refuses bad options naming the plugin and the field', () => {
    expect(() => codex({ bin: '' })).toThrow(/plugin codex: option "bin"/);
  });
});
