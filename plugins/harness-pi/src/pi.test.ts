import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Orange, OrangePaths, newTaskMeta, noopActions, type Harness, type HarnessRequest } from '@orange/core';
import { afterEach, describe, expect, it } from 'vitest';
import { pi, piAgentDir, REVIEWER_GUARD_PATH } from './index.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'orange-pi-'));
  dirs.push(dir);
  return dir;
}

async function harness(plugin = pi()): Promise<Harness> {
  const home = await tempDir();
  const orange = await Orange.create({ defaults: false, plugins: [noopActions(), plugin] }, { paths: new OrangePaths(home) });
  return orange.harnesses.get('pi')!;
}

function request(overrides: Partial<HarnessRequest> = {}): HarnessRequest {
  const task = newTaskMeta({ id: 'p'.repeat(21), project: 'demo', branch: 'feat/x', status: 'working' });
  return { task, role: 'worker', prompt: 'do the task', respawn: false, effort: null, workspace: '/tmp/ws', ...overrides };
}

type ToolCallHandler = (event: { toolName: string; input: unknown }) => Promise<{ block: true; reason: string } | undefined>;

/** Loads the guard file as pi would and returns its tool_call handler. */
async function loadGuard(file: string): Promise<ToolCallHandler> {
  const handlers: Record<string, ToolCallHandler> = {};
  const module = (await import(pathToFileURL(file).href)) as { default: (api: { on(event: string, handler: ToolCallHandler): void }) => void };
  module.default({ on: (event, handler) => void (handlers[event] = handler) });
  return handlers.tool_call!;
}

describe('pi harness', () => {
  it('starts an interactive pi with the prompt as its first message', async () => {
    const h = await harness();
    expect(h.command(request()).argv).toEqual(['pi', 'do the task']);
  });

  it('passes the effort as the thinking level, and provider, model, bin and extra arguments', async () => {
    const h = await harness(pi({ bin: '/opt/pi', provider: 'anthropic', model: 'claude-sonnet-4-5', extraArgs: ['--verbose'] }));
    expect(h.command(request({ effort: 'high' })).argv).toEqual([
      '/opt/pi',
      '--provider',
      'anthropic',
      '--model',
      'claude-sonnet-4-5',
      '--thinking',
      'high',
      '--verbose',
      'do the task',
    ]);
  });

  it('keeps a prompt starting with a dash or an @ a message, not an option or a file', async () => {
    const h = await harness();
    expect(h.command(request({ prompt: '--help me' })).argv).toEqual(['pi', ' --help me']);
    expect(h.command(request({ prompt: '@README.md says so' })).argv).toEqual(['pi', ' @README.md says so']);
    expect(h.command(request({ prompt: 'a -b @c' })).argv).toEqual(['pi', 'a -b @c']);
  });

  it('respawns with the same command (pi has no permission modes to reduce)', async () => {
    const h = await harness();
    expect(h.command(request({ respawn: true })).argv).toEqual(h.command(request()).argv);
  });

  it('loads the reviewer guard extension for reviewers only', async () => {
    const h = await harness();
    const ws = await tempDir();
    expect(h.command(request({ role: 'reviewer', workspace: ws })).argv).toEqual(['pi', '--extension', join(ws, REVIEWER_GUARD_PATH), 'do the task']);
    await h.prepare!(ws, request({ workspace: ws }));
    await expect(readFile(join(ws, REVIEWER_GUARD_PATH), 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('writes a reviewer guard that blocks gh pr review and gh pr comment and nothing else', async () => {
    const h = await harness();
    const ws = await tempDir();
    await h.prepare!(ws, request({ role: 'reviewer', workspace: ws }));
    await h.prepare!(ws, request({ role: 'reviewer', workspace: ws }));
    const guard = await loadGuard(join(ws, REVIEWER_GUARD_PATH));
    for (const command of ['gh pr review 3 --approve', 'cd x && gh pr comment 3 -b hi', 'gh  pr   review']) {
      expect(await guard({ toolName: 'bash', input: { command } }), command).toMatchObject({ block: true, reason: expect.stringContaining('TASK.md') });
    }
    for (const command of ['gh pr view 3', 'gh pr create', 'echo gh pr reviewer', 'npm test']) {
      expect(await guard({ toolName: 'bash', input: { command } }), command).toBeUndefined();
    }
    expect(await guard({ toolName: 'read', input: { path: 'gh pr review' } })).toBeUndefined();
  });

  it('hides .pi/ from git and installs skills under pi’s agent dir', async () => {
    const h = await harness();
    expect(h.excludes).toEqual(['.pi/']);
    expect(h.skillsDir).toBe(join(piAgentDir(), 'skills'));
    expect(piAgentDir({}, '/home/u')).toBe('/home/u/.pi/agent');
    expect(piAgentDir({ PI_CODING_AGENT_DIR: '/cfg/pi' }, '/home/u')).toBe('/cfg/pi');
    expect(piAgentDir({ PI_CODING_AGENT_DIR: '~/pi' }, '/home/u')).toBe('/home/u/pi');
  });

  it('is installed only when its binary is on PATH', async () => {
    expect(await (await harness(pi({ bin: 'no-such-pi-xyz' }))).installed()).toBe(false);
    expect(await (await harness(pi({ bin: 'sh' }))).installed()).toBe(true);
  });

  it('offers headless runs on its tiers, falling back to the model option when a run names none', async () => {
    const h = await harness(pi({ model: 'opus', tiers: ['haiku', 'opus'] }));
    const headless = { task: request().task, prompt: 'p', workspace: '/tmp/ws', phase: 'classify', resultFile: '/tmp/r.json' };
    expect(h.headless!.tiers).toEqual(['haiku', 'opus']);
    expect(h.headless!.command({ ...headless, model: null }).argv).toEqual(['pi', '--mode', 'json', '--model', 'opus', '--print', 'p']);
    expect(h.headless!.command({ ...headless, model: 'haiku' }).argv).toContain('haiku');
    expect((await harness()).headless!.tiers).toEqual(['haiku', 'sonnet', 'opus']);
  });

  it('refuses unknown options naming the plugin and the field', () => {
    expect(() => pi({ modle: 'x' } as never)).toThrow(/plugin pi/);
    expect(() => pi({ extraArgs: 'x' } as never)).toThrow(/plugin pi: option "extraArgs"/);
  });
});
