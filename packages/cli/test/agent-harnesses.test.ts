import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { delimiter, dirname, join } from 'node:path';
import type { TaskMeta } from '@orange/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliSandbox } from './cli-sandbox.js';

/**
 * The built-in harnesses through the real CLI, tmux and worktrees: stand-in executables named
 * like each agent CLI record how they were started (argv, working directory, the environment
 * a harness sets) and then stay alive like an agent.
 */
let box: CliSandbox;
let PATH: string;
const AGENTS = ['claude', 'codex', 'pi', 'opencode', 'gemini'] as const;

const RECORDER = `#!/usr/bin/env node
const { writeFileSync, mkdirSync } = require('node:fs');
const { basename, join } = require('node:path');
const dir = join(process.env.HOME, 'agent-starts');
mkdirSync(dir, { recursive: true });
const record = { agent: basename(process.argv[1]), argv: process.argv.slice(2), cwd: process.cwd(), opencodeConfig: process.env.OPENCODE_CONFIG_CONTENT ?? null };
writeFileSync(join(dir, record.agent + '-' + process.pid + '.json'), JSON.stringify(record));
setInterval(() => {}, 60_000);
`;

interface AgentStart {
  readonly agent: string;
  readonly argv: string[];
  readonly cwd: string;
  readonly opencodeConfig: string | null;
}

beforeAll(async () => {
  box = await CliSandbox.create({ poolSize: 12 });
  const bin = join(box.dir, 'agent-bin');
  await mkdir(bin);
  for (const agent of AGENTS) await writeFile(join(bin, agent), RECORDER, { mode: 0o755 });
  PATH = [bin, dirname(process.execPath), box.env.PATH].join(delimiter);
}, 60_000);
afterAll(() => box?.cleanup());

async function startedBy(meta: TaskMeta, agent: string, sandbox: CliSandbox = box): Promise<AgentStart> {
  const dir = join(sandbox.home, 'agent-starts');
  let found: AgentStart | undefined;
  await sandbox.waitFor(`${agent} to start for task ${meta.id}`, async () => {
    for (const file of (await readdir(dir)).filter((f) => f.startsWith(`${agent}-`))) {
      const start = JSON.parse(await readFile(join(dir, file), 'utf8')) as AgentStart;
      if (start.cwd === meta.workspace) found = start;
    }
    return found !== undefined;
  });
  return found!;
}

async function create(args: string[], sandbox: CliSandbox = box, path: string = PATH): Promise<TaskMeta> {
  const out = await sandbox.json<{ task: TaskMeta }>(['task', 'create', ...args], { env: { PATH: path } });
  expect(out.task.workspace, JSON.stringify(out.task)).toBeTruthy();
  return out.task;
}

describe('orange task create --harness', () => {
  // The last argument carries the prompt: alone, or joined to the flag that marks it.
  it.each([
    ['claude', ['--dangerously-skip-permissions', '--'], ''],
    ['codex', ['exec', '--dangerously-bypass-approvals-and-sandbox', '--'], ''],
    ['pi', [], ''],
    ['opencode', ['run', '--auto', '--'], ''],
    ['gemini', ['--skip-trust', '--approval-mode', 'yolo'], '--prompt-interactive='],
  ])('starts %s as the worker in the task’s worktree with its argv, leaving git status clean', async (agent, flags, promptFlag) => {
    const meta = await create([`feature/${agent}-worker`, `work with ${agent}`, '--harness', agent]);
    const start = await startedBy(meta, agent);
    expect(start.argv.slice(0, -1)).toEqual(flags);
    expect(start.argv.at(-1)?.startsWith(promptFlag), start.argv.join(' ')).toBe(true);
    expect(start.argv.at(-1)?.slice(promptFlag.length)).toContain(`work with ${agent}`);
    expect(start.opencodeConfig).toBeNull();
    // What a harness writes into the worktree is hidden from git by its excludes.
    expect(await box.git(meta.workspace as string, 'status', '--porcelain')).toBe('');
  }, 60_000);

  it('passes the task effort as each CLI’s own setting', async () => {
    const pi = await create(['feature/pi-effort', 'think hard', '--harness', 'pi', '--effort', 'high']);
    expect((await startedBy(pi, 'pi')).argv.slice(0, 2)).toEqual(['--thinking', 'high']);
    const opencode = await create(['feature/opencode-effort', 'think hard', '--harness', 'opencode', '--effort', 'high']);
    expect((await startedBy(opencode, 'opencode')).argv).toEqual(expect.arrayContaining(['--variant', 'high']));
  }, 60_000);

  it('writes opencode.json granting orange and the agent folder of the task in an opencode worktree', async () => {
    const meta = await create(['feature/opencode-config', 'configured', '--harness', 'opencode']);
    await startedBy(meta, 'opencode');
    const config = JSON.parse(await readFile(join(meta.workspace as string, 'opencode.json'), 'utf8'));
    expect(config.permission.bash).toEqual({ 'orange *': 'allow' });
    expect(config.permission.external_directory).toEqual({ [`${box.paths.agentDir(meta.project, meta.id)}/**`]: 'allow' });
  }, 60_000);

  it.each([
    ['pi', (ws: string) => ['--extension', join(ws, '.pi/orange/reviewer-guard.js')], '.pi/orange/reviewer-guard.js'],
    ['gemini', (ws: string) => ['--policy', join(ws, '.gemini/orange-reviewer-policy.toml')], '.gemini/orange-reviewer-policy.toml'],
  ])('keeps a %s reviewer from posting to GitHub', async (agent, expected, file) => {
    const meta = await create([`feature/${agent}-review`, `review with ${agent}`, '--harness', agent, '--status', 'agent-review']);
    const start = await startedBy(meta, agent);
    const ws = meta.workspace as string;
    expect(start.argv.join('\n')).toContain(expected(ws).join('\n'));
    expect(existsSync(join(ws, file))).toBe(true);
    expect(await box.git(ws, 'status', '--porcelain')).toBe('');
  }, 60_000);

  it('keeps an opencode reviewer from posting to GitHub through its inline config', async () => {
    const meta = await create(['feature/opencode-review', 'review with opencode', '--harness', 'opencode', '--status', 'agent-review']);
    const start = await startedBy(meta, 'opencode');
    expect(JSON.parse(start.opencodeConfig ?? '{}')).toEqual({ permission: { bash: { 'gh pr review*': 'deny', 'gh pr comment*': 'deny' } } });
  }, 60_000);
});

/**
 * A PATH holding stand-ins for `agents` only: the sandbox's PATH without any directory that
 * holds a real agent CLI, so what is detected is only what the test put there.
 */
async function pathWith(sandbox: CliSandbox, agents: readonly string[]): Promise<string> {
  const bin = join(sandbox.dir, `agent-bin-${agents.join('-') || 'none'}`);
  await mkdir(bin);
  for (const agent of agents) await writeFile(join(bin, agent), RECORDER, { mode: 0o755 });
  const withoutAgents = [dirname(process.execPath), ...sandbox.env.PATH!.split(delimiter)].filter((dir) => !AGENTS.some((agent) => existsSync(join(dir, agent))));
  return [bin, ...withoutAgents].join(delimiter);
}

describe('harness detection and the config’s harness through task create', () => {
  // Built-ins only: no harness named, so detection decides (or the config file of the test).
  let bare: CliSandbox;
  beforeAll(async () => {
    bare = await CliSandbox.create({ poolSize: 6, config: 'export default {};\n' });
  }, 60_000);
  afterAll(() => bare?.cleanup());

  it.each([
    ['pi', ['pi', 'opencode', 'gemini']],
    ['opencode', ['opencode', 'gemini']],
    ['gemini', ['gemini']],
  ])('starts %s when it is the first agent CLI installed, claude and codex absent from PATH', async (agent, installed) => {
    const path = await pathWith(bare, installed);
    const meta = await create([`feature/detect-${agent}`, `detected ${agent}`], bare, path);
    const start = await startedBy(meta, agent, bare);
    expect(start.argv.join(' ')).toContain(`detected ${agent}`);
    const others = (await readdir(join(bare.home, 'agent-starts'))).filter((file) => !file.startsWith(`${agent}-`));
    const startedOthers = await Promise.all(others.map(async (file) => JSON.parse(await readFile(join(bare.home, 'agent-starts', file), 'utf8')) as AgentStart));
    expect(startedOthers.filter((other) => other.cwd === meta.workspace)).toEqual([]);
  }, 60_000);

  it('starts opencode’s argv when the config says harness: opencode, though claude is installed too', async () => {
    await writeFile(join(bare.dir, 'orange.config.mjs'), "export default { harness: 'opencode' };\n");
    try {
      const path = await pathWith(bare, AGENTS);
      const meta = await create(['feature/config-opencode', 'configured opencode'], bare, path);
      expect(meta.harness ?? null).toBeNull();
      const start = await startedBy(meta, 'opencode', bare);
      expect(start.argv).toEqual(['run', '--auto', '--', expect.stringContaining('configured opencode')]);
    } finally {
      await writeFile(join(bare.dir, 'orange.config.mjs'), 'export default {};\n');
    }
  }, 60_000);
});
