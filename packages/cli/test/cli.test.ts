import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { delimiter, dirname, join } from 'node:path';
import type { LogRecord } from '@orange/core';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliSandbox, STACK_LINE, root } from './cli-sandbox.js';

let box: CliSandbox;
beforeAll(async () => {
  box = await CliSandbox.create();
});
afterAll(() => box?.cleanup());

describe('orange install', () => {
  it('writes the skill only for installed harnesses, naming the rest as not installed or without a skills directory', async () => {
    const none = await box.json<{ installed: unknown[]; skipped: string[]; notInstalled: string[] }>(['install']);
    expect(none).toMatchObject({ installed: [], notInstalled: ['claude', 'codex', 'pi', 'opencode', 'gemini'] });
    expect(none.skipped).toEqual(expect.arrayContaining(['idle', 'scripted']));
    expect(existsSync(join(box.home, '.codex'))).toBe(false);

    // A stand-in claude on PATH: only claude counts as installed.
    const bin = join(box.dir, 'fake-bin');
    await mkdir(bin, { recursive: true });
    await writeFile(join(bin, 'claude'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    const out = await box.json<{ installed: Array<{ harness: string; file: string }>; notInstalled: string[] }>(['install'], { env: { PATH: `${bin}:${box.env.PATH}` } });
    const claude = join(box.home, '.claude/skills/orange/SKILL.md');
    expect(out.installed).toEqual([{ harness: 'claude', file: claude }]);
    expect(out.notInstalled).toEqual(['codex', 'pi', 'opencode', 'gemini']);
    expect(await readFile(claude, 'utf8')).toMatch(/^---\nname: orange\ndescription: .+\n---\n/);
    expect(existsSync(join(box.home, '.codex'))).toBe(false);
  });

  it('writes the skill for a harness asked for by name even when it is not installed', async () => {
    const codex = join(box.home, '.codex/skills/orange/SKILL.md');
    const human = await box.orange(['install', '--harness', 'codex']);
    expect(human).toMatchObject({ code: 0, stderr: '', stdout: `codex: wrote ${codex}` });
    expect(await readFile(codex, 'utf8')).toMatch(/^---\nname: orange\n/);
  });

  it('writes the skill into each installed agent CLI’s own skills directory', async () => {
    // Only stand-ins for claude, codex and opencode (and node) on PATH.
    const bin = join(box.dir, 'fake-bin-three');
    await mkdir(bin, { recursive: true });
    for (const name of ['claude', 'codex', 'opencode']) await writeFile(join(bin, name), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    const PATH = [bin, dirname(process.execPath)].join(delimiter);
    const out = await box.json<{ installed: Array<{ harness: string; file: string }>; notInstalled: string[] }>(['install'], { env: { PATH } });
    expect(out.installed).toEqual([
      { harness: 'claude', file: join(box.home, '.claude/skills/orange/SKILL.md') },
      { harness: 'codex', file: join(box.home, '.codex/skills/orange/SKILL.md') },
      { harness: 'opencode', file: join(box.home, '.config/opencode/skills/orange/SKILL.md') },
    ]);
    expect(out.notInstalled).toEqual(['pi', 'gemini']);
    for (const dir of ['.pi', '.gemini']) expect(existsSync(join(box.home, dir)), dir).toBe(false);
    for (const [harness, file] of [
      ['pi', '.pi/agent/skills/orange/SKILL.md'],
      ['gemini', '.gemini/skills/orange/SKILL.md'],
    ] as const) {
      const named = await box.json<{ installed: Array<{ harness: string; file: string }> }>(['install', '--harness', harness], { env: { PATH } });
      expect(named.installed).toEqual([{ harness, file: join(box.home, file) }]);
      expect(await readFile(join(box.home, file), 'utf8')).toContain('name: orange');
    }
  });

  it('running it again restores an edited skill; --harness limits it to one harness', async () => {
    const codex = join(box.home, '.codex/skills/orange/SKILL.md');
    const claude = join(box.home, '.claude/skills/orange/SKILL.md');
    await writeFile(codex, 'edited\n');
    await writeFile(claude, 'edited\n');
    const human = await box.orange(['install', '--harness', 'codex']);
    expect(human).toMatchObject({ code: 0, stderr: '', stdout: `codex: wrote ${codex}` });
    expect(await readFile(codex, 'utf8')).toContain('name: orange');
    expect(await readFile(claude, 'utf8')).toBe('edited\n');
  });

  it('refuses an unknown harness', async () => {
    const refused = await box.jsonError(['install', '--harness', 'nope']);
    expect(refused).toMatchObject({ code: 'E_HARNESS', exit: 1 });
    expect(refused.error).toMatch(/^no harness named "nope" \(known: .*claude.*\)$/);
  });
});

describe('orange log', () => {
  const logHome = () => join(box.dir, 'log-home');
  const env = () => ({ ORANGE_HOME: logHome() });
  const record = (time: string, level: string, component: string, msg: string, fields: object = {}) =>
    JSON.stringify({ time, level, component, msg, ...fields });

  beforeAll(async () => {
    await mkdir(logHome(), { recursive: true });
    await writeFile(
      join(logHome(), 'orange.log'),
      [
        record('2026-01-01T00:00:01.000Z', 'debug', 'core', 'lock taken'),
        record('2026-01-01T00:00:02.000Z', 'info', 'core', 'task created', { task: 'T1' }),
        record('2026-01-01T00:00:03.000Z', 'warn', 'monitor', 'exit ignored', { task: 'T1' }),
        'not json at all',
        record('2026-01-01T00:00:04.000Z', 'error', 'tmux', 'hook failed', { hook: 'spawn_agent' }),
        record('2026-01-01T00:00:05.000Z', 'info', 'monitor', 'Agent Exited', { task: 'T2' }),
        '',
      ].join('\n'),
    );
  });

  const messages = async (args: string[]) => (await box.json<{ records: LogRecord[] }>(['log', ...args], { env: env() })).records.map((r) => r.msg);

  it('prints every record, newest last, and counts malformed lines', async () => {
    const out = await box.json<{ file: string; records: LogRecord[]; malformed: number }>(['log'], { env: env() });
    expect(out.file).toBe(join(logHome(), 'orange.log'));
    expect(out.records.map((r) => r.msg)).toEqual(['lock taken', 'task created', 'exit ignored', 'hook failed', 'Agent Exited']);
    expect(out.malformed).toBe(1);
    const human = await box.orange(['log', '--lines', '1'], { env: env() });
    expect(human.stdout).toBe('2026-01-01T00:00:05.000Z  info   monitor  Agent Exited  task=T2');
  });

  it('--level keeps records at or above the level', async () => {
    expect(await messages(['--level', 'warn'])).toEqual(['exit ignored', 'hook failed']);
    expect(await messages(['--level', 'error'])).toEqual(['hook failed']);
  });

  it('--component keeps one component', async () => {
    expect(await messages(['--component', 'monitor'])).toEqual(['exit ignored', 'Agent Exited']);
  });

  it('--grep matches the whole line, ignoring case', async () => {
    expect(await messages(['--grep', 'agent exited'])).toEqual(['Agent Exited']);
    expect(await messages(['--grep', 't1'])).toEqual(['task created', 'exit ignored']);
  });

  it('--lines keeps the last matching records', async () => {
    expect(await messages(['--lines', '2'])).toEqual(['hook failed', 'Agent Exited']);
    expect(await messages(['--component', 'core', '-n', '1'])).toEqual(['task created']);
  });

  it("shows what the CLI itself logged in this ORANGE_HOME", async () => {
    const task = await box.createTask(['feature/logged', 'log me']);
    const records = (await box.json<{ records: LogRecord[] }>(['log', '--component', 'core', '--grep', task.id])).records;
    expect(records).toEqual([expect.objectContaining({ level: 'info', component: 'core', msg: 'task created', task: task.id })]);
  });

  it('refuses when there is no log yet', async () => {
    const refused = await box.jsonError(['log'], { env: { ORANGE_HOME: join(box.dir, 'empty-home') } });
    expect(refused).toMatchObject({ code: 'E_INVALID_INPUT', exit: 1, error: `no log yet at ${join(box.dir, 'empty-home', 'orange.log')}` });
  });
});

describe('orange workflow show', () => {
  it("prints the project's workflow as JSON, naming the known ones", async () => {
    const out = await box.json<{ workflow: { name: string; initial: string; start: string; transitions: Array<{ from: string; to: string; gate?: string }> }; known: string[] }>([
      'workflow',
      'show',
    ]);
    expect(out.known).toEqual(['default', 'classic', 'pipeline']);
    expect(out.workflow).toMatchObject({ name: 'default', initial: 'pending', start: 'planning' });
    expect(out.workflow.transitions).toContainEqual(expect.objectContaining({ from: 'planning', to: 'working', gate: 'plan' }));
  });

  it('prints states and transitions as tables for people, and follows the project in the current directory', async () => {
    const human = await box.orange(['workflow', 'show', 'default']);
    expect(human.stdout.split('\n')[0]).toBe('workflow default (initial pending, start planning); known: default, classic, pipeline');
    expect(human.stdout).toMatch(/^TRANSITION\s+BY\s+GATE\s+GUARD\s+HOOKS$/m);
    expect(human.stdout).toMatch(/^working → agent-review\s+agent, orange\s+handoff\s+-\s+increment_review_round, spawn_reviewer$/m);
    const classicRepo = await box.addProject('classic-project');
    await box.json(['project', 'update', '--workflow', 'classic'], { cwd: classicRepo });
    const inferred = await box.json<{ workflow: { name: string } }>(['workflow', 'show'], { cwd: classicRepo });
    expect(inferred.workflow.name).toBe('classic');
  });

  it('marks crash-only transitions, which only the exit monitor takes, and force-only ones', async () => {
    const human = await box.orange(['workflow', 'show', 'default']);
    expect(human.stdout).toMatch(/^planning → stuck \(crash only\)\s+orange\s+-\s+-\s+notify_worker$/m);
    expect(human.stdout).toMatch(/^working → stuck\s+agent, orange\s+-\s+-\s+notify_worker$/m);
    expect(human.stdout).toContain('(crash only): taken by exit monitoring when an agent crashed crashLimit times; it cannot be requested.');
    expect(human.stdout).toMatch(/^working → done \(force only\)\s+person\s+-\s+-\s+kill_session, release_workspace, delete_remote_branch, spawn_next$/m);
    expect(human.stdout).toContain("(force only): taken only by a confirmed force-merge (orange task merge --force, the dashboard's m); never an agent's request.");
  });

  it('refuses an unknown workflow', async () => {
    const refused = await box.jsonError(['workflow', 'show', 'nope']);
    expect(refused.exit).toBe(1);
    expect(refused.error).toBe('no workflow named "nope" (known: default, classic, pipeline)');
  });
});

describe('errors and usage', () => {
  it.each([
    ['an unknown flag', ['task', 'list', '--bogus'], 'Nonexistent flag: --bogus'],
    ['a missing required argument', ['task', 'spawn'], 'Missing 1 required arg: id  Task id.'],
    ['a value outside the options', ['log', '--level', 'loud'], 'Expected --level=loud to be one of: debug, info, warn, error'],
    ['an extra argument', ['task', 'spawn', 'AAAAAAAAAAAAAAAAAAAAA', 'extra'], 'Unexpected argument: extra'],
  ])('reports %s as bad usage: exit 2, one line', async (_what, args, message) => {
    const human = await box.orange(args);
    expect(human).toMatchObject({ code: 2, stdout: '', stderr: `orange: ${message}` });
    const json = await box.jsonError(args);
    expect(json).toEqual({ error: message, code: 'E_USAGE', exit: 2 });
  });

  it('runs as npx orange at the repository root, as the README promises', async () => {
    const result = await execa('npx', ['--no-install', 'orange', '--version'], { cwd: root, reject: false });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/^@orange\/cli\/\d+\.\d+\.\d+ /);
  });

  it('exits 2 for an unknown command', async () => {
    const result = await box.orange(['nope']);
    expect(result).toMatchObject({ code: 2, stdout: '', stderr: 'orange: unknown command "nope"; run: orange --help' });
    const json = await box.orange(['task', 'nope', '--json']);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toEqual({ error: 'unknown command "task nope"; run: orange --help', code: 'E_USAGE' });
  });

  it('takes `orange help [COMMAND…]` and `orange version` as --help and --version; help for no such command is the unknown command line', async () => {
    for (const [typed, flagged] of [
      [['help'], ['--help']],
      [['help', 'task'], ['task', '--help']],
      [['help', 'task', 'create'], ['task', 'create', '--help']],
      [['version'], ['--version']],
    ]) {
      const [a, b] = [await box.orange(typed!), await box.orange(flagged!)];
      expect(a, typed!.join(' ')).toEqual(b);
      expect(a.code).toBe(0);
    }
    expect(await box.orange(['help', 'nope'])).toMatchObject({ code: 2, stdout: '', stderr: 'orange: unknown command "nope"; run: orange --help' });
  });

  it('prints a stack with ORANGE_DEBUG=1, and only then', async () => {
    const plain = await box.orange(['task', 'show', 'AAAAAAAAAAAAAAAAAAAAA']);
    expect(plain.stderr).not.toMatch(STACK_LINE);
    const debug = await box.orange(['task', 'show', 'AAAAAAAAAAAAAAAAAAAAA'], { env: { ORANGE_DEBUG: '1' } });
    expect(debug.code).toBe(1);
    expect(debug.stderr).toMatch(/^OrangeError: no task with id AAAAAAAAAAAAAAAAAAAAA\n/);
    expect(debug.stderr).toMatch(STACK_LINE);
    expect(debug.stderr.split('\n').at(-1)).toBe('orange: no task with id AAAAAAAAAAAAAAAAAAAAA');
  });

  it('reports an unexpected error from a plugin in one line with a hint, not a stack', async () => {
    const dir = join(box.dir, 'exploding');
    await mkdir(dir, { recursive: true });
    await writeFile(
      join(dir, 'orange.config.mjs'),
      [
        'export default {',
        "  plugins: [{ name: 'exploding-scm', apply(orange) {",
        "    orange.provide('scm', { name: 'exploding', merge() { throw new Error('the scm exploded'); } });",
        '  } }],',
        '};',
        '',
      ].join('\n'),
    );
    const task = await box.createTask(['feature/explode', 'explode', '--status', 'reviewing']);
    const human = await box.orange(['task', 'merge', task.id, '--yes', '--project', 'demo'], { cwd: dir });
    expect(human).toMatchObject({ code: 1, stderr: 'orange: unexpected error: the scm exploded (set ORANGE_DEBUG=1 for the stack)' });
    const json = await box.jsonError(['task', 'merge', task.id, '--yes', '--project', 'demo'], { cwd: dir });
    expect(json).toMatchObject({ code: 'E_INTERNAL', exit: 1 });
    expect((await box.task(task.id)).meta.status).toBe('reviewing');
  });

  it('names the config file and field of a bad config', async () => {
    const dir = join(box.dir, 'bad-config');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'orange.config.mjs'), 'export default { poolSize: "two" };\n');
    const refused = await box.jsonError(['task', 'list', '--all'], { cwd: dir });
    expect(refused).toMatchObject({ code: 'E_CONFIG', exit: 1 });
    expect(refused.error).toMatch(new RegExp(`^${join(dir, 'orange.config.mjs')}: field "poolSize" `));
  });
});

describe('orange workflow simulate', () => {
  it('walks the default workflow through the script, printing each step, and writes nothing', async () => {
    const before = await box.orange(['task', 'list', '--json']);
    const human = await box.orange(['workflow', 'simulate', '--script', 'request working; exit worker; review FAIL; exit reviewer']);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout.split('\n')).toEqual(
      expect.arrayContaining([
        'workflow default, simulated (no tmux, git or worktree)',
        ' 1. create  → planning',
        '    pending → planning (spawn); actions: acquire_workspace, spawn_agent',
        ' 2. request working  → working',
        '    working → agent-review (auto); actions: spawn_reviewer',
        '    agent-review → working (auto); actions: kill_reviewer, notify_worker',
        'ends in working (review_round 1, crash_count 0)',
      ]),
    );
    expect(await box.windows()).toEqual([]);
    expect((await box.orange(['task', 'list', '--json'])).stdout).toBe(before.stdout);
  });

  it('prints refusals with the check that refused; --json gives every step; a bad event is a usage error', async () => {
    const out = await box.json<{ workflow: string; steps: Array<{ event: string; status: string; lines: string[] }>; task: { status: string } }>([
      'workflow', 'simulate', 'classic', '--script', 'request done; gate handoff fail nothing written; exit worker',
    ]);
    expect(out.workflow).toBe('classic');
    expect(out.steps[1]?.lines.map((l) => l.trim())).toEqual([expect.stringMatching(/^refused working → done \(map\): not a transition of workflow classic/)]);
    expect(out.steps.at(-1)?.lines.map((l) => l.trim())).toContain('crash 1 in working: process exited without its artifact (nothing written)');
    const bad = await box.jsonError(['workflow', 'simulate', '--script', 'request working; jump']);
    expect(bad).toMatchObject({ code: 'E_USAGE', exit: 2 });
    expect(bad.error).toMatch(/^script event 2 "jump": unknown event/);
    expect(await box.jsonError(['workflow', 'simulate', 'nope', '--script', 'exit worker'])).toMatchObject({ code: 'E_WORKFLOW_INVALID' });
  });

  it("runs the config's plugins: a team's veto refuses the merge until the simulated worktree holds APPROVED; tmux and git stay untouched", async () => {
    const dir = join(box.dir, 'team-rules');
    await mkdir(dir, { recursive: true });
    await writeFile(
      join(dir, 'orange.config.mjs'),
      [
        "import { existsSync } from 'node:fs';",
        "import { join } from 'node:path';",
        'export default {',
        "  plugins: [{ name: 'team-rules', apply(orange) {",
        "    orange.hooks.beforeTransition.tapPromise('team-rules', async (e) =>",
        "      e.to === 'done' && !existsSync(join(String(e.task.meta.workspace), 'APPROVED')) ? 'no APPROVED file in the worktree' : undefined);",
        '  } }],',
        '};',
        '',
      ].join('\n'),
    );
    const worktrees = await box.git(box.repo, 'worktree', 'list');
    type Simulated = { steps: Array<{ event: string; status: string; lines: string[] }>; task: { status: string } };
    const reviewed = 'request working; exit worker; review PASS; exit reviewer';
    const refused = await box.json<Simulated>(['workflow', 'simulate', '--script', `${reviewed}; merge`], { cwd: dir });
    expect(refused.steps.at(-1)?.lines.map((l) => l.trim())).toEqual(['refused reviewing → done (veto): no APPROVED file in the worktree']);
    expect(refused.task.status).toBe('reviewing');
    const approved = await box.json<Simulated>(['workflow', 'simulate', '--script', `${reviewed}; file APPROVED; merge`], { cwd: dir });
    expect(approved.task.status).toBe('done');
    expect(await box.windows()).toEqual([]);
    expect(await box.git(box.repo, 'worktree', 'list')).toBe(worktrees);
  });
});
