/**
 * `task create`, `task spawn` and `task respawn` exist to start an agent: when an action of the
 * transition fails, the status change stands (and the task is flagged), but the command fails,
 * quoting the action's own error, with exit 1.
 */
import type { TaskMeta } from '@orange/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CliSandbox, type CliResult } from './cli-sandbox.js';

let box: CliSandbox;
beforeAll(async () => {
  box = await CliSandbox.create();
});
afterAll(() => box?.cleanup());

// The pool has two worktrees: each test's task gives its own back.
const started: string[] = [];
afterEach(async () => {
  for (const id of started.splice(0)) await box.orange(['task', 'cancel', id, '--yes']);
});

function explain(result: CliResult): string {
  return `exit ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`;
}

const UNKNOWN = /no harness named "aider" \(known: [a-z:, ]+\)/;

describe('an action that fails while starting an agent', () => {
  it('makes task create print the action’s own error and exit 1, while the task stays created and flagged', async () => {
    const result = await box.orange(['task', 'create', 'feature/aider', 'use a harness nobody has', '--harness', 'aider']);
    expect(result.code, explain(result)).toBe(1);
    const id = /^created task ([0-9A-Za-z]{21}) on feature\/aider \(planning\)$/m.exec(result.stdout)?.[1];
    expect(id, explain(result)).toBeDefined();
    started.push(id as string);
    expect(result.stderr.split('\n'), explain(result)).toHaveLength(1);
    expect(result.stderr, explain(result)).toMatch(new RegExp(`^orange: task ${id} was created \\(planning\\), but spawn_agent failed: ${UNKNOWN.source} \\(the task is flagged for attention\\)$`));
    const task = await box.task(id as string);
    expect(task.meta.status).toBe('planning');
    expect((await box.history(id as string)).map((e) => e.type)).toContain('hook.failed');
  });

  it('gives the same failure as one JSON object with error, code and each failed action', async () => {
    const result = await box.orange(['task', 'create', 'feature/aider-json', 'json', '--harness', 'aider', '--json']);
    expect(result.code, explain(result)).toBe(1);
    const out = JSON.parse(result.stdout) as { task: TaskMeta; error: string; code: string; failedHooks: string[]; failures: { action: string; message: string; code?: string }[] };
    started.push(out.task.id);
    expect(out.task.status).toBe('planning');
    expect(out.code).toBe('E_HARNESS');
    expect(out.failedHooks).toEqual(['spawn_agent']);
    expect(out.failures).toEqual([{ action: 'spawn_agent', message: expect.stringMatching(UNKNOWN) as unknown as string, code: 'E_HARNESS' }]);
    expect(out.error).toMatch(UNKNOWN);
  });

  it('makes task spawn of a pending task fail the same way, with the status change kept', async () => {
    const created = await box.createTask(['feature/aider-spawn', 'spawn later', '--harness', 'aider'], { spawn: false });
    started.push(created.id);
    const result = await box.orange(['task', 'spawn', created.id]);
    expect(result.code, explain(result)).toBe(1);
    expect(result.stdout, explain(result)).toBe(`task ${created.id}: pending → planning`);
    expect(result.stderr, explain(result)).toMatch(new RegExp(`^orange: task ${created.id} is planning, but spawn_agent failed: ${UNKNOWN.source} \\(the task is flagged for attention\\)$`));
    expect((await box.task(created.id)).meta.status).toBe('planning');
  });

  it('makes task respawn quote the action’s own error with its code', async () => {
    const created = await box.createTask(['feature/aider-respawn', 'respawn', '--harness', 'aider'], { spawn: false });
    started.push(created.id);
    await box.orange(['task', 'spawn', created.id]);
    const refused = await box.jsonError(['task', 'respawn', created.id]);
    expect(refused.exit).toBe(1);
    expect(refused.code).toBe('E_HARNESS');
    expect(refused.error).toMatch(new RegExp(`^respawn of task ${created.id} failed: spawn_agent: ${UNKNOWN.source}$`));
  });
});

/**
 * Every command that loads the config, with arguments its parser accepts: the refusal must come
 * from the config, not from a missing argument. The task id names no task (none is reached).
 */
const NO_TASK = 'aaaaaaaaaaaaaaaaaaaaa';
const LOADS_CONFIG: Record<string, readonly string[]> = {
  // A registered project's exit report loads that project's config: this one names none.
  'agent:exited': ['--project', 'unregistered', '--task', NO_TASK, '--role', 'worker'],
  doctor: [],
  install: [],
  'memory:forget': ['x'],
  'memory:list': [],
  'memory:show': ['x'],
  monitor: [],
  'pipeline:run': ['--task', NO_TASK],
  'project:add': ['.'],
  'project:list': [],
  'project:remove': ['demo'],
  'project:update': ['demo', '--pool-size', '3'],
  'task:attach': [NO_TASK],
  'task:cancel': [NO_TASK, '--yes'],
  'task:clarify': [NO_TASK, 'more detail'],
  'task:complete': [],
  'task:create-pr': [NO_TASK],
  'task:create': ['feature/typo', 'never created'],
  'task:delete': [NO_TASK, '--yes'],
  'task:list': [],
  'task:merge': [NO_TASK, '--yes'],
  'task:move': [NO_TASK, 'done'],
  'task:output': [NO_TASK],
  'task:repair': [NO_TASK],
  'task:request-changes': [NO_TASK],
  'task:respawn': [NO_TASK],
  'task:resume': [NO_TASK],
  'task:section:set': ['Notes', '--text', 'x', '--task', NO_TASK],
  'task:show': [NO_TASK],
  'task:spawn': [NO_TASK],
  'task:stuck': [],
  'task:update': ['--status', 'done'],
  web: [],
  'workflow:show': [],
  'workflow:simulate': ['--script', 'exit worker'],
  'workspace:gc': [],
  'workspace:init': [],
  'workspace:list': [],
};

/** The commands that never load the config found from the working directory, and why. */
const NO_CONFIG: Record<string, string> = {
  completion: 'prints a script built from the command list',
  dash: 'refuses to run without a terminal before it loads anything; in one, it loads the config as every command does',
  demo: 'builds a sandbox of its own, with its own config',
  init: 'writes a config, and refuses to shadow an .orangerc.json of its own accord',
  log: 'reads $ORANGE_HOME/orange.log only',
  'notifications:deliver': 'loads a config only for an outbox entry raised under it',
};

describe('a config harness that no plugin registers', () => {
  let dir: string;
  beforeAll(async () => {
    const { mkdir, writeFile } = await import('node:fs/promises');
    const { join } = await import('node:path');
    dir = join(box.repo, 'typo');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, '.orangerc.json'), JSON.stringify({ harness: 'gemni' }));
  });

  it('leaves no command of the built CLI out of the list of commands that load the config', async () => {
    const { readFile } = await import('node:fs/promises');
    const manifest = JSON.parse(await readFile(new URL('../oclif.manifest.json', import.meta.url), 'utf8')) as { commands: Record<string, unknown> };
    expect(Object.keys(manifest.commands).sort()).toEqual([...Object.keys(LOADS_CONFIG), ...Object.keys(NO_CONFIG)].sort());
  });

  it.each(Object.entries(LOADS_CONFIG).map(([id, args]) => [id.replace(/:/g, ' '), args] as const))(
    'is refused when the config loads, by orange %s, naming the field and the known harnesses',
    async (command, args) => {
      const { join } = await import('node:path');
      const result = await box.orange([...command.split(' '), ...args], { cwd: dir });
      expect(result.code, explain(result)).toBe(1);
      expect(result.stderr, explain(result)).toMatch(new RegExp(`^orange: ${join(dir, '.orangerc.json')}: field "harness" names no registered harness "gemni" \\(known: claude, codex, pi, opencode, gemini, command[a-z:, ]*\\)$`));
    },
  );
});
