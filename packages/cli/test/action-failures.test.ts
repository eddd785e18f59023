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

describe('a config harness that no plugin registers', () => {
  it('is refused when the config loads, by every command, naming the field and the known harnesses', async () => {
    const { mkdir, writeFile } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const dir = join(box.repo, 'typo');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, '.orangerc.json'), JSON.stringify({ harness: 'gemni' }));
    const result = await box.orange(['task', 'list'], { cwd: dir });
    expect(result.code, explain(result)).toBe(1);
    expect(result.stderr, explain(result)).toMatch(new RegExp(`^orange: ${join(dir, '.orangerc.json')}: field "harness" names no registered harness "gemni" \\(known: claude, codex, pi, opencode, gemini, command[a-z:, ]*\\)$`));
  });
});
