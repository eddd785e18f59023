import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Orange, OrangePaths, newTaskMeta, noopActions, type Harness, type HarnessRequest } from '@orange/core';
import { afterEach, describe, expect, it } from 'vitest';
import { claude } from './index.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'orange-claude-'));
  dirs.push(dir);
  return dir;
}

async function harness(plugin = claude()): Promise<{ h: Harness; home: string }> {
  const home = await tempDir();
  const orange = await Orange.create({ defaults: false, plugins: [noopActions(), plugin] }, { paths: new OrangePaths(home) });
  return { h: orange.harnesses.get('claude')!, home };
}

const ID = 'b'.repeat(21);
function request(overrides: Partial<HarnessRequest> = {}): HarnessRequest {
  const task = newTaskMeta({ id: ID, project: 'demo', branch: 'feat/x', status: 'working' });
  return { task, role: 'worker', prompt: 'do the task', respawn: false, effort: null, workspace: '/tmp/ws', ...overrides };
}

describe('claude harness', () => {
  it('starts a worker with every permission check skipped and the prompt last', async () => {
    const { h } = await harness();
    expect(h.command(request()).argv).toEqual(['claude', '--dangerously-skip-permissions', '--', 'do the task']);
  });

  it('blocks gh pr review and gh pr comment for reviewers', async () => {
    const { h } = await harness();
    expect(h.command(request({ role: 'reviewer' })).argv).toEqual([
      'claude',
      '--dangerously-skip-permissions',
      '--disallowedTools',
      'Bash(gh pr review:*)',
      'Bash(gh pr comment:*)',
      '--',
      'do the task',
    ]);
  });

  it('respawns with reduced permissions instead of skipping checks', async () => {
    const { h } = await harness();
    const argv = h.command(request({ respawn: true })).argv;
    expect(argv).toEqual(['claude', '--permission-mode', 'acceptEdits', '--', 'do the task']);
    expect(argv).not.toContain('--dangerously-skip-permissions');
    const reviewer = h.command(request({ respawn: true, role: 'reviewer' })).argv;
    expect(reviewer).toContain('--disallowedTools');
    expect(reviewer).not.toContain('--dangerously-skip-permissions');
  });

  it('passes effort, model, bin and extra arguments', async () => {
    const { h } = await harness(claude({ bin: '/opt/claude', model: 'sonnet', extraArgs: ['--verbose'] }));
    expect(h.command(request({ effort: 'high' })).argv).toEqual([
      '/opt/claude',
      '--dangerously-skip-permissions',
      '--model',
      'sonnet',
      '--effort',
      'high',
      '--verbose',
      '--',
      'do the task',
    ]);
  });

  it('keeps a prompt starting with a dash as the prompt', async () => {
    const { h } = await harness();
    expect(h.command(request({ prompt: '--help me' })).argv.slice(-2)).toEqual(['--', '--help me']);
  });

  it('hides .claude/ from git and installs skills under ~/.claude/skills', async () => {
    const { h } = await harness();
    expect(h.excludes).toEqual(['.claude/']);
    expect(h.skillsDir).toBe(join(homedir(), '.claude', 'skills'));
  });

  it('is installed only when its binary is on PATH', async () => {
    expect(await (await harness(claude({ bin: 'no-such-claude-xyz' }))).h.installed()).toBe(false);
    expect(await (await harness(claude({ bin: 'sh' }))).h.installed()).toBe(true);
  });

  it('writes .claude/settings.local.json allowing orange and the agent folder of the task', async () => {
    const { h, home } = await harness();
    const ws = await tempDir();
    await h.prepare!(ws, request({ workspace: ws }));
    const settings = JSON.parse(await readFile(join(ws, '.claude', 'settings.local.json'), 'utf8'));
    expect(settings).toEqual({
      permissions: { allow: ['Bash(orange:*)'], additionalDirectories: [join(home, 'tasks', 'demo', ID, 'agent')] },
    });
  });

  it('merges into an existing settings.local.json without losing the user entries, and stays stable when run twice', async () => {
    const { h, home } = await harness();
    const ws = await tempDir();
    await mkdir(join(ws, '.claude'));
    const user = { model: 'opus', permissions: { allow: ['Bash(npm test:*)'], deny: ['Read(.env)'] }, env: { A: '1' } };
    await writeFile(join(ws, '.claude', 'settings.local.json'), JSON.stringify(user));
    await h.prepare!(ws, request({ workspace: ws }));
    await h.prepare!(ws, request({ workspace: ws }));
    const settings = JSON.parse(await readFile(join(ws, '.claude', 'settings.local.json'), 'utf8'));
    expect(settings).toEqual({
      model: 'opus',
      env: { A: '1' },
      permissions: {
        allow: ['Bash(npm test:*)', 'Bash(orange:*)'],
        deny: ['Read(.env)'],
        additionalDirectories: [join(home, 'tasks', 'demo', ID, 'agent')],
      },
    });
  });

  it('refuses to overwrite a settings.local.json that is not valid JSON', async () => {
    const { h } = await harness();
    const ws = await tempDir();
    await mkdir(join(ws, '.claude'));
    await writeFile(join(ws, '.claude', 'settings.local.json'), '{ broken');
    await expect(h.prepare!(ws, request({ workspace: ws }))).rejects.toMatchObject({ code: 'E_HARNESS', message: expect.stringContaining('is not valid JSON') });
    expect(await readFile(join(ws, '.claude', 'settings.local.json'), 'utf8')).toBe('{ broken');
  });

  it('refuses unknown options naming the plugin and the field', () => {
    expect(() => claude({ modle: 'x' } as never)).toThrow(/plugin claude/);
    expect(() => claude({ extraArgs: 'x' } as never)).toThrow(/plugin claude: option "extraArgs"/);
  });
});
