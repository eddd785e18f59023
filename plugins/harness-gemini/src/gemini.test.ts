import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Orange, OrangePaths, newTaskMeta, noopActions, type Harness, type HarnessRequest } from '@orange/core';
import { afterEach, describe, expect, it } from 'vitest';
import { gemini, geminiDir, REVIEWER_POLICY_PATH } from './index.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'orange-gemini-'));
  dirs.push(dir);
  return dir;
}

let home = '';
async function harness(plugin = gemini()): Promise<Harness> {
  home = await tempDir();
  const orange = await Orange.create({ defaults: false, plugins: [noopActions(), plugin] }, { paths: new OrangePaths(home) });
  return orange.harnesses.get('gemini')!;
}

function request(overrides: Partial<HarnessRequest> = {}): HarnessRequest {
  const task = newTaskMeta({ id: 'm'.repeat(21), project: 'demo', branch: 'feat/x', status: 'working' });
  return { task, role: 'worker', prompt: 'do the task', respawn: false, effort: null, workspace: '/tmp/ws', ...overrides };
}

describe('gemini harness', () => {
  it('starts an interactive gemini in yolo mode in a trusted worktree, the prompt as --prompt-interactive', async () => {
    const h = await harness();
    expect(h.command(request()).argv).toEqual(['gemini', '--skip-trust', '--approval-mode', 'yolo', '--prompt-interactive=do the task']);
  });

  it('respawns in auto_edit mode instead of yolo', async () => {
    const h = await harness();
    const argv = h.command(request({ respawn: true })).argv;
    expect(argv).toEqual(['gemini', '--skip-trust', '--approval-mode', 'auto_edit', '--prompt-interactive=do the task']);
    expect(argv).not.toContain('yolo');
  });

  it('passes model, bin and extra arguments, and ignores the effort (the CLI has no flag for it)', async () => {
    const h = await harness(gemini({ bin: '/opt/gemini', model: 'gemini-2.5-pro', extraArgs: ['--debug'] }));
    expect(h.command(request({ effort: 'high' })).argv).toEqual([
      '/opt/gemini',
      '--skip-trust',
      '--approval-mode',
      'yolo',
      '--model',
      'gemini-2.5-pro',
      '--debug',
      '--prompt-interactive=do the task',
    ]);
  });

  it('says in the log that it ignored the effort', async () => {
    const h = await harness();
    h.command(request({ effort: 'high', role: 'reviewer' }));
    const records = (await readFile(new OrangePaths(home).logFile, 'utf8')).trim().split('\n').map((line) => JSON.parse(line));
    expect(records).toContainEqual(expect.objectContaining({ level: 'warn', component: 'gemini', msg: 'effort ignored: the Gemini CLI has no effort setting', effort: 'high', role: 'reviewer' }));
  });

  it('keeps a prompt starting with a dash as the prompt, joined to its flag', async () => {
    const h = await harness();
    const argv = h.command(request({ prompt: '--help me' })).argv;
    expect(argv.at(-1)).toBe('--prompt-interactive=--help me');
    expect(argv).not.toContain('--');
  });

  it('loads the reviewer policy for reviewers, keeping the user’s own policies', async () => {
    const h = await harness();
    const ws = await tempDir();
    expect(h.command(request({ role: 'reviewer', workspace: ws })).argv).toEqual([
      'gemini',
      '--skip-trust',
      '--approval-mode',
      'yolo',
      '--policy',
      join(ws, REVIEWER_POLICY_PATH),
      '--policy',
      join(geminiDir(), 'policies'),
      '--prompt-interactive=do the task',
    ]);
  });

  it('writes the reviewer policy denying gh pr review and gh pr comment, for reviewers only', async () => {
    const h = await harness();
    const ws = await tempDir();
    await h.prepare!(ws, request({ workspace: ws }));
    await expect(readFile(join(ws, REVIEWER_POLICY_PATH), 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
    await h.prepare!(ws, request({ role: 'reviewer', workspace: ws }));
    const policy = await readFile(join(ws, REVIEWER_POLICY_PATH), 'utf8');
    expect(policy).toContain('toolName = "run_shell_command"');
    expect(policy).toContain('commandPrefix = ["gh pr review", "gh pr comment"]');
    expect(policy).toContain('decision = "deny"');
  });

  it('hides .gemini/ from git and installs skills under the Gemini CLI’s directory', async () => {
    const h = await harness();
    expect(h.excludes).toEqual(['.gemini/']);
    expect(h.skillsDir).toBe(join(geminiDir(), 'skills'));
    expect(geminiDir({}, '/home/u')).toBe('/home/u/.gemini');
    expect(geminiDir({ GEMINI_CLI_HOME: '/g' }, '/home/u')).toBe('/g/.gemini');
  });

  it('is installed only when its binary is on PATH', async () => {
    expect(await (await harness(gemini({ bin: 'no-such-gemini-xyz' }))).installed()).toBe(false);
    expect(await (await harness(gemini({ bin: 'sh' }))).installed()).toBe(true);
  });

  it('offers headless runs on its tiers, falling back to the model option when a run names none', async () => {
    const h = await harness(gemini({ model: 'gemini-2.5-pro' }));
    const headless = { task: request().task, prompt: 'p', workspace: '/tmp/ws', phase: 'classify', resultFile: '/tmp/r.json' };
    expect(h.headless!.tiers).toEqual(['gemini-2.5-flash-lite', 'gemini-2.5-flash', 'gemini-2.5-pro']);
    expect(h.headless!.command({ ...headless, model: null }).argv).toContain('gemini-2.5-pro');
    expect(h.headless!.command({ ...headless, model: 'gemini-2.5-flash' }).argv.at(-1)).toBe('--prompt=p');
  });

  it('refuses unknown options naming the plugin and the field', () => {
    expect(() => gemini({ effort: 'x' } as never)).toThrow(/plugin gemini/);
    expect(() => gemini({ bin: '' })).toThrow(/plugin gemini: option "bin"/);
  });
});
