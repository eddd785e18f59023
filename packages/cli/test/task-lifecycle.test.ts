import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import type { HistoryEvent, TaskMeta } from '@orange/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, CliSandbox } from './cli-sandbox.js';

let box: CliSandbox;
beforeAll(async () => {
  box = await CliSandbox.create({ poolSize: 16 });
});
afterAll(() => box?.cleanup());

interface TransitionJson {
  task: TaskMeta;
  from: string;
  to: string;
  changed: boolean;
  failedHooks: string[];
}

// The tmux plugin names a task's session <project>/<task id>.
const session = (meta: TaskMeta) => `demo/${meta.id}`;
const types = (events: HistoryEvent[]) => events.map((e) => e.type);

describe('starting and inspecting agents', () => {
  it('spawn starts a pending task: a worktree, a worker window, planning', async () => {
    const pending = await box.createTask(['feature/spawn', 'spawn me']);
    const out = await box.json<TransitionJson>(['task', 'spawn', pending.id]);
    expect(out).toMatchObject({ from: 'pending', to: 'planning', changed: true, failedHooks: [] });
    expect(out.task.workspace).toMatch(new RegExp(`^${box.paths.workspacesDir}/demo--\\d+$`));
    expect(out.task.worker_spawn).toBeTruthy();
    expect(await box.windows()).toContain(`${session(pending)}:worker`);
    expect(await box.git(out.task.workspace as string, 'branch', '--show-current')).toBe('feature/spawn');
    // Created with --no-spawn (put aside), it joined the queue when asked to start.
    expect(types(await box.history(pending.id))).toEqual(['task.created', 'task.queued', 'status.changed', 'workspace.acquired', 'agent.spawned']);
  });

  it('spawn refuses a task that is not pending', async () => {
    const task = await box.startTask('feature/spawn-twice');
    const refused = await box.jsonError(['task', 'spawn', task.id]);
    expect(refused).toMatchObject({ code: 'E_NOT_ALLOWED', exit: 1 });
    expect(refused.error).toBe(`task ${task.id} is planning; only a pending task can be spawned (use respawn for a dead agent)`);
  });

  it("inside a task's worktree, show and update find the task without an id", async () => {
    const task = await box.startTask('feature/inferred');
    const workspace = task.workspace as string;
    await mkdir(join(workspace, 'src', 'deep'), { recursive: true });
    const shown = await box.json<{ task: TaskMeta }>(['task', 'show'], { cwd: join(workspace, 'src', 'deep') });
    expect(shown.task.id).toBe(task.id);
    await box.writeSection(task.id, 'Plan', 'APPROACH: edit one file\nTOUCHING: src/');
    const moved = await box.json<TransitionJson>(['task', 'update', '--status', 'working'], { cwd: workspace });
    expect(moved).toMatchObject({ from: 'planning', to: 'working', task: { id: task.id, status: 'working' } });
    const human = await box.orange(['task', 'update', '--summary', 'renamed inside'], { cwd: workspace });
    expect(human.stdout.trim()).toBe(`task ${task.id}: summary is now renamed inside`);
  });

  it('refuses planning → working without ## Plan, naming the missing section, and changes nothing', async () => {
    const task = await box.startTask('feature/no-plan');
    const human = await box.orange(['task', 'update', '--status', 'working'], { cwd: task.workspace as string });
    expect(human.code).toBe(1);
    expect(human.stderr).toBe('orange: planning → working refused: TASK.md has no ## Plan section');
    await box.writeSection(task.id, 'Plan', 'APPROACH:');
    const empty = await box.jsonError(['task', 'update', task.id, '--status', 'working']);
    expect(empty).toMatchObject({ code: 'E_GATE_FAILED', exit: 1 });
    expect(empty.error).toMatch(/^planning → working refused: ## Plan needs a line APPROACH: .* with content after the colon$/);
    expect((await box.task(task.id)).meta.status).toBe('planning');
  });

  it('complete is refused without ## Handoff; with one it moves to agent-review and starts the reviewer', async () => {
    const task = await box.startTask('feature/complete');
    await box.toWorking(task);
    const refused = await box.jsonError(['task', 'complete'], { cwd: task.workspace as string });
    expect(refused).toMatchObject({ code: 'E_GATE_FAILED', exit: 1, error: 'working → agent-review refused: TASK.md has no ## Handoff section' });
    await box.writeSection(task.id, 'Handoff', 'DONE: the change\nUNCERTAIN: none');
    const done = await box.json<TransitionJson>(['task', 'complete', task.id]);
    expect(done).toMatchObject({ from: 'working', to: 'agent-review', task: { review_round: 1 } });
    expect(done.task.reviewer_spawn).toBeTruthy();
    expect(await box.windows()).toEqual(expect.arrayContaining([`${session(task)}:worker`, `${session(task)}:review-1-${done.task.reviewer_spawn}`]));
  });

  it('stuck asks for a human from working', async () => {
    const task = await box.startTask('feature/stuck');
    await box.toWorking(task);
    const out = await box.json<TransitionJson>(['task', 'stuck', task.id]);
    expect(out).toMatchObject({ from: 'working', to: 'stuck', changed: true, task: { id: task.id, status: 'stuck' } });
    expect((await box.task(task.id)).meta.status).toBe('stuck');
  });

  it('update --branch renames the branch in the worktree; --branch alone adopts the branch git switched to', async () => {
    const task = await box.startTask('feature/before-rename');
    const workspace = task.workspace as string;
    const renamed = await box.orange(['task', 'update', '--branch', 'feature/after-rename'], { cwd: workspace });
    expect(renamed.stdout.trim()).toBe(`task ${task.id}: branch is now feature/after-rename`);
    expect(await box.git(workspace, 'branch', '--show-current')).toBe('feature/after-rename');
    await box.git(workspace, 'checkout', '-q', '-b', 'feature/switched-by-git');
    const adopted = await box.json<{ task: TaskMeta; edited: string[] }>(['task', 'update', '--branch'], { cwd: workspace });
    expect(adopted).toMatchObject({ edited: ['branch'], task: { branch: 'feature/switched-by-git' } });
    expect((await box.task(task.id)).meta.branch).toBe('feature/switched-by-git');
  });
});

describe('respawn', () => {
  it('refuses a task that is not active', async () => {
    const pending = await box.createTask(['feature/respawn-pending', 'not active']);
    const refused = await box.jsonError(['task', 'respawn', pending.id]);
    expect(refused).toMatchObject({ code: 'E_NOT_ALLOWED', exit: 1, error: `task ${pending.id} is pending; only an active task can be respawned` });
  });

  it('refuses while the agent is alive, and restarts it once its window is gone', async () => {
    const task = await box.startTask('feature/respawn');
    const alive = await box.jsonError(['task', 'respawn', task.id]);
    expect(alive).toMatchObject({ code: 'E_NOT_ALLOWED', exit: 1 });
    expect(alive.error).toBe(`the worker of task ${task.id} is still running; attach with: orange task attach ${task.id}`);

    await box.tmux('kill-window', '-t', `=${session(task)}:=worker`);
    // The agent wrapper reports the exit on its own; wait for the engine to handle it.
    await box.waitFor('the exit report', async () => types(await box.history(task.id)).includes('agent.exited'));
    await box.waitFor('the spawn to be cleared', async () => (await box.task(task.id)).meta.worker_spawn === null);
    const out = await box.json<{ task: TaskMeta }>(['task', 'respawn', task.id]);
    expect(out.task).toMatchObject({ id: task.id, status: 'planning', workspace: task.workspace });
    expect(out.task.worker_spawn).toBeTruthy();
    expect(out.task.worker_spawn).not.toBe(task.worker_spawn);
    expect(await box.windows()).toContain(`${session(task)}:worker`);
    expect((await box.history(task.id)).filter((e) => e.type === 'agent.spawned')).toHaveLength(2);
  });
});

describe('attach', () => {
  it('refuses without a terminal (exit 2)', async () => {
    const task = await box.startTask('feature/attach-no-tty');
    const refused = await box.jsonError(['task', 'attach', task.id]);
    expect(refused).toMatchObject({ code: 'E_USAGE', exit: 2, error: 'attach needs a terminal (standard input is not one)' });
  });

  it('refuses a finished task without advising a respawn that would be refused too', async () => {
    const task = await box.createTask(['feature/attach-done', 'finished before attaching']);
    await box.json(['task', 'cancel', task.id, '--yes']);
    const refused = await box.jsonError(['task', 'attach', task.id]);
    expect(refused).toMatchObject({ code: 'E_NOT_ALLOWED', exit: 1 });
    expect(refused.error).toBe(`task ${task.id} is cancelled; a finished task has no agents to attach to (its output: orange task output ${task.id})`);
    expect(refused.error).not.toMatch(/respawn/);
  });

  it("attaches a terminal to the task's session and returns 0 (and with --json one object) when detached", async () => {
    const task = await box.startTask('feature/attach');
    // `script` gives the CLI a pseudo-terminal, as a user's shell would.
    const command = [process.execPath, CLI, 'task', 'attach', task.id, '--role', 'worker', '--json'].map((a) => `'${a}'`).join(' ');
    const attached = execa('script', ['-qec', command, '/dev/null'], { env: box.env, extendEnv: false, reject: false, timeout: 20_000, cwd: box.repo });
    await box.waitFor('a client on the session', async () => (await box.tmux('list-clients', '-F', '#{client_session}')).stdout.includes(session(task)));
    await box.tmux('detach-client', '-s', `=${session(task)}`);
    const result = await attached;
    expect(result.exitCode).toBe(0);
    expect(String(result.stdout)).toContain(`[detached (from session ${session(task)})]`);
    expect(String(result.stdout)).toContain('"attached": true');
  });
});

describe('cancel and delete', () => {
  it('cancel without --yes and without a terminal refuses and changes nothing', async () => {
    const task = await box.startTask('feature/cancel-confirm');
    const human = await box.orange(['task', 'cancel', task.id]);
    expect(human.code).toBe(1);
    expect(human.stderr).toBe(`orange: Cancel task ${task.id} (planning, feature/cancel-confirm) needs confirmation and there is no terminal to ask; pass --yes`);
    const json = await box.jsonError(['task', 'cancel', task.id]);
    expect(json).toMatchObject({ code: 'E_CONFIRM', exit: 1 });
    expect((await box.task(task.id)).meta).toMatchObject({ status: 'planning', workspace: task.workspace });
    expect(await box.windows()).toContain(`${session(task)}:worker`);
  });

  it('cancel --yes stops the agent and releases the worktree', async () => {
    const task = await box.startTask('feature/cancel');
    const out = await box.json<TransitionJson>(['task', 'cancel', task.id, '--yes']);
    expect(out).toMatchObject({ from: 'planning', to: 'cancelled', failedHooks: [], task: { status: 'cancelled', workspace: null } });
    expect((await box.windows()).filter((w) => w.startsWith(`${session(task)}:`))).toEqual([]);
    const cancelledAgain = await box.jsonError(['task', 'cancel', task.id, '--yes']);
    expect(cancelledAgain).toMatchObject({ code: 'E_ILLEGAL_TRANSITION', exit: 1, error: 'cancelled → cancelled refused: cancelled is terminal' });
  });

  it('delete refuses a task that is not finished', async () => {
    const task = await box.createTask(['feature/delete-active', 'active']);
    const refused = await box.jsonError(['task', 'delete', task.id, '--yes']);
    expect(refused).toMatchObject({ code: 'E_NOT_ALLOWED', exit: 1 });
    expect(refused.error).toBe(`task ${task.id} is pending; only a finished task (done or cancelled) can be deleted — cancel it first`);
    expect(existsSync(box.paths.taskFile('demo', task.id))).toBe(true);
  });

  it('delete without --yes and without a terminal refuses and keeps the task', async () => {
    const task = await box.createTask(['feature/delete-confirm', 'to delete']);
    await box.json(['task', 'cancel', task.id, '--yes']);
    const refused = await box.jsonError(['task', 'delete', task.id]);
    expect(refused).toMatchObject({ code: 'E_CONFIRM', exit: 1 });
    expect(refused.error).toMatch(/needs confirmation and there is no terminal to ask; pass --yes$/);
    expect((await box.task(task.id)).meta.status).toBe('cancelled');
  });

  it('delete --yes removes a cancelled task and its history', async () => {
    const task = await box.createTask(['feature/delete', 'to delete']);
    await box.json(['task', 'cancel', task.id, '--yes']);
    const out = await box.json<{ deleted: { project: string; id: string } }>(['task', 'delete', task.id, '--yes']);
    expect(out.deleted).toEqual({ project: 'demo', id: task.id });
    expect(existsSync(box.paths.taskDir('demo', task.id))).toBe(false);
    expect((await box.jsonError(['task', 'show', task.id])).code).toBe('E_TASK_NOT_FOUND');
  });
});

describe('a status edited by hand', () => {
  it('is refused as tampering, shown by task show, and restored by task repair', async () => {
    const task = await box.createTask(['feature/tampered', 'tamper with me']);
    const file = box.paths.taskFile('demo', task.id);
    await writeFile(file, (await readFile(file, 'utf8')).replace(/^status: pending$/m, 'status: reviewing'));

    const refused = await box.jsonError(['task', 'update', task.id, '--status', 'cancelled']);
    expect(refused).toMatchObject({ code: 'E_TAMPERED', exit: 1 });
    expect(refused.error).toBe(`task ${task.id}: TASK.md was edited by hand: status "reviewing" (of record: "pending"); run: orange task repair ${task.id}`);
    const merge = await box.jsonError(['task', 'merge', task.id, '--yes']);
    expect(merge.code).toBe('E_TAMPERED');
    const shown = await box.json<{ tampered: unknown }>(['task', 'show', task.id]);
    expect(shown.tampered).toEqual({ fields: [{ field: 'status', expected: 'pending', found: 'reviewing' }], file: 'reviewing', ledger: 'pending' });

    const repaired = await box.json<{ from: string; to: string; repaired: boolean; fields: string[] }>(['task', 'repair', task.id]);
    expect(repaired).toMatchObject({ from: 'reviewing', to: 'pending', repaired: true, fields: ['status'] });
    expect((await box.task(task.id)).meta.status).toBe('pending');
    expect((await box.history(task.id)).at(-1)).toMatchObject({ type: 'status.repaired', from: 'reviewing', to: 'pending' });
    const again = await box.orange(['task', 'repair', task.id]);
    expect(again.stdout.trim()).toBe(`task ${task.id}: TASK.md agrees with the record; nothing to repair`);
    await box.json(['task', 'cancel', task.id, '--yes']);
  });
});

describe('agent exits', () => {
  it('agent exited (hidden) applies the exit rule once per spawn', async () => {
    const task = await box.startTask('feature/exit-report');
    await box.writeSection(task.id, 'Plan', 'APPROACH: small\nTOUCHING: notes.md');
    const report = ['agent', 'exited', '--project', 'demo', '--task', task.id, '--role', 'worker', '--spawn', task.worker_spawn as string, '--code', '0'];
    const first = await box.json<{ task: TaskMeta; decision: { kind: string; to?: string } }>(report);
    expect(first.decision).toMatchObject({ kind: 'advance', to: 'working' });
    expect(first.task).toMatchObject({ status: 'working', worker_spawn: null });
    const second = await box.json<{ decision: { kind: string } }>(report);
    expect(second.decision.kind).toBe('ignore');
    const help = await box.orange(['--help']);
    expect(help.stdout).toMatch(/^ {2}task {2,}/m);
    expect(help.stdout).not.toMatch(/^ {2}agent {2,}/m);
  });

  it('monitor --once applies the exit rule to an agent that died without reporting', async () => {
    const task = await box.startTask('feature/monitored');
    const pane = await box.tmux('list-panes', '-t', `=${session(task)}:=worker`, '-F', '#{pane_pid}');
    // SIGKILL to the wrapper's process group: no exit report, only the monitor can notice.
    // An empty answer would make this kill(0): SIGKILL to the test's own process group.
    expect(pane.stdout.trim(), pane.stderr).toMatch(/^[1-9][0-9]*$/);
    process.kill(-Number(pane.stdout.trim()), 'SIGKILL');
    await box.waitFor('the window to close', async () => !(await box.windows()).includes(`${session(task)}:worker`));
    const report = await box.json<{ tasks: number; agentsChecked: number; exits: Array<Record<string, string>>; sessionsKilled: string[]; workspacesFreed: string[]; pullRequests: unknown[] }>(
      ['monitor', '--once'],
    );
    expect(Object.keys(report)).toEqual(expect.arrayContaining(['tasks', 'agentsChecked', 'exits', 'sessionsKilled', 'workspacesFreed', 'pullRequests', 'durationMs']));
    expect(report.exits).toEqual([
      { task: task.id, role: 'worker', decision: 'crash', reason: 'process exited without its artifact (TASK.md has no ## Plan section)' },
    ]);
    expect((await box.task(task.id)).meta).toMatchObject({ status: 'planning', crash_count: 1, worker_spawn: null });
    // The dead agent is shown, not only counted: ✗ in the list, `dead` in its JSON.
    const listed = await box.json<{ flags: Record<string, { dead: string[] }> }>(['task', 'list']);
    expect(listed.flags[task.id]?.dead).toEqual(['worker']);
    expect((await box.orange(['task', 'list'])).stdout).toMatch(new RegExp(`${task.id}.*✗worker`));
    const human = await box.orange(['monitor', '--once']);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^checked \d+ tasks, \d+ agents in \d+ ms$/m);
  });

  it('monitor runs a pass per interval, one JSON object per line, and exits 0 on SIGTERM', async () => {
    const monitor = execa(process.execPath, [CLI, 'monitor', '--interval', '200', '--json'], { cwd: box.repo, env: box.env, extendEnv: false, reject: false });
    let out = '';
    monitor.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
    await box.waitFor('two passes', async () => out.split('\n').filter(Boolean).length >= 2);
    monitor.kill('SIGTERM');
    const result = await monitor;
    expect(result.exitCode).toBe(0);
    expect(String(result.stderr)).toBe('');
    for (const line of String(result.stdout).split('\n').filter(Boolean)) expect(JSON.parse(line)).toHaveProperty('exits');
  });
});

describe('request-changes', () => {
  /** A task in reviewing whose worker still runs, reached the way a human would. */
  async function reviewing(branch: string): Promise<TaskMeta> {
    const started = await box.startTask(branch);
    await box.toWorking(started);
    await box.json(['task', 'update', started.id, '--status', 'stuck']);
    return (await box.json<{ task: TaskMeta }>(['task', 'update', started.id, '--status', 'reviewing'])).task;
  }

  it('sends a task in reviewing back to working, the instructions from standard input added to ## Notes', async () => {
    const task = await reviewing('feature/changes-stdin');
    const out = await box.json<TransitionJson>(['task', 'request-changes', task.id, '--notes', '-'], { input: 'rename the flag to --dry-run\n' });
    expect(out).toMatchObject({ from: 'reviewing', to: 'working', changed: true, failedHooks: [], task: { status: 'working' } });
    const { body } = await box.task(task.id);
    expect(body).toMatch(/^## Notes\n\nChanges requested \(\d{4}-\d\d-\d\dT[\d:.]+Z\):\nrename the flag to --dry-run$/m);
    expect((await box.history(task.id)).filter((e) => e.type === 'status.changed').at(-1)).toMatchObject({ from: 'reviewing', to: 'working', cause: 'request', reason: 'changes requested' });
  });

  it('without --notes only moves the task (the worker reads ## Review), and says so in one line', async () => {
    const task = await reviewing('feature/changes-plain');
    const before = (await box.task(task.id)).body;
    const human = await box.orange(['task', 'request-changes', task.id]);
    expect(human).toMatchObject({ code: 0, stderr: '', stdout: `task ${task.id}: reviewing → working` });
    expect((await box.task(task.id)).body).toBe(before);
  });

  it('refuses a task that is not in reviewing with one line, and changes nothing', async () => {
    const task = await box.startTask('feature/changes-refused');
    const before = await box.taskText(task.id);
    const human = await box.orange(['task', 'request-changes', task.id, '--notes', 'too early']);
    expect(human).toMatchObject({ code: 1, stdout: '', stderr: `orange: planning → working refused: task ${task.id} is planning; changes are requested on a task in reviewing` });
    const json = await box.jsonError(['task', 'request-changes', task.id, '--notes', 'too early']);
    expect(json).toMatchObject({ code: 'E_ILLEGAL_TRANSITION', exit: 1 });
    expect(await box.taskText(task.id)).toBe(before);
    const unknown = await box.jsonError(['task', 'request-changes', 'x'.repeat(21)]);
    expect(unknown).toMatchObject({ code: 'E_TASK_NOT_FOUND', exit: 1 });
  });
});
