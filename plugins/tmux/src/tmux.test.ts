import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, stat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { listProcesses, OrangeError, processTree } from '@orange/core';
import { waitFor } from '@orange/test-support';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, otherActions, readEnvDump, tmuxSandbox, type TmuxSandbox } from '../test/tmux-sandbox.js';
import { killTaskSession } from './agent-kill.js';
import { windowReaperPath } from './dist-script-path.js';
import { sessionName } from './session-name.js';
import { panePids } from './tmux-kill.js';
import { TmuxClient } from './tmux-client.js';
import { tmux } from './tmux.js';

// Each agent dumps its environment and arguments, then idles like a real agent would.
const DUMP = 'env -0 > "$ORANGE_HOME/env-$ORANGE_ROLE.txt"; printf "%s\\n" "$@" > "$ORANGE_HOME/args-$ORANGE_ROLE.txt"; sleep 30';

let box: TmuxSandbox;

/** The arguments an agent running DUMP wrote (after its environment): waited for, since the agent writes them once it runs. */
function dumpedArgs(role: string): Promise<string> {
  return waitFor(`args-${role}.txt from the agent's DUMP`, () => readFile(join(box.home, `args-${role}.txt`), 'utf8').catch(() => ''), { timeoutMs: 5_000 });
}

beforeAll(async () => {
  box = await tmuxSandbox();
  box.setAgent(() => ['sh', '-c', DUMP, 'sh', 'ends with;', '#{session_name}']);
});
afterAll(async () => {
  await box.cleanup();
});

describe('spawn_agent', () => {
  it('starts the worker in session <project>/<task id>, window worker, in the workspace, with the agent env', async () => {
    const task = await box.newTask({ branch: 'feat/env.check' });
    const after = await box.read(task);
    const session = `demo/${task.meta.id}`;
    expect(after.meta.status).toBe('planning');
    expect(after.meta.tmux_session).toBe(session);
    expect(after.meta.worker_spawn).toMatch(/^[0-9A-Za-z]{10}$/);
    expect(await box.windows()).toContain(`${session}:worker`);
    expect(await box.tmux('display-message', '-p', '-t', `=${session}:=worker`, '#{pane_current_path}')).toBe(after.meta.workspace);

    // The agent writes its environment, then its arguments: once the arguments are in, both files are whole.
    const args = await dumpedArgs('worker');
    const env = await readEnvDump(join(box.home, 'env-worker.txt'));
    expect(env).toMatchObject({
      ORANGE_TASK_ID: task.meta.id,
      ORANGE_PROJECT: 'demo',
      ORANGE_BRANCH: 'feat/env.check',
      ORANGE_ROLE: 'worker',
      ORANGE_STATUS: 'planning',
      ORANGE_REVIEW_ROUND: '0',
      ORANGE_TASK_FILE: join(after.meta.workspace!, 'TASK.md'),
      ORANGE_HOME: box.home,
      ORANGE_SPAWN_ID: after.meta.worker_spawn,
      ORANGE_TMUX_SOCKET: box.socket,
      TEST_HARNESS_VAR: 'from-harness',
    });
    expect(env.ORANGE_PROMPT).toContain('# Task: test task');
    expect(env.PATH!.split(':')[0]).toBe(join(box.home, 'run', 'bin'));
    // Arguments reach the agent untouched: no `;` command splitting, no format expansion.
    expect(args).toBe('ends with;\n#{session_name}\n');

    const history = await box.orange.store.history('demo', task.meta.id);
    expect(history).toContainEqual(expect.objectContaining({ type: 'agent.spawned', role: 'worker', session, window: 'worker', harness: 'script', spawn: after.meta.worker_spawn }));
  });

  it('fires the agentSpawned hook once the spawn id is recorded, with the role and that id', async () => {
    const seen: Array<{ task: string; role: string; spawnId: string; recorded: string | null }> = [];
    box.orange.hooks.agentSpawned.tapPromise('test-spawned', async (event) => {
      seen.push({ task: event.task.meta.id, role: event.role, spawnId: event.spawnId, recorded: event.task.meta.worker_spawn });
    });
    const task = await box.newTask({ branch: 'feat/spawned-hook' });
    const after = await box.read(task);
    expect(seen.filter((e) => e.task === task.meta.id)).toEqual([
      { task: task.meta.id, role: 'worker', spawnId: after.meta.worker_spawn, recorded: after.meta.worker_spawn },
    ]);
  });

  it('starts the command as an agentCommand tap returned it (a runtime wrapping the agent), with its variables, where it says', async () => {
    box.orange.hooks.agentCommand.tapPromise('test-wrapping-runtime', async (command, event) => {
      if (event.run.kind !== 'terminal' || event.task.meta.branch !== 'feat/wrapped') return command;
      // As a container runtime would: the agent's argv inside another program's, a variable of its own, another directory.
      return { argv: ['env', 'WRAPPED_BY=test-runtime', ...command.argv], env: { ...command.env, RUNTIME_VAR: `${event.run.role}:${event.run.spawnId}` }, cwd: box.home };
    });
    const task = await box.newTask({ branch: 'feat/wrapped' });
    const after = await box.read(task);
    const env = await eventually(() => readEnvDump(join(box.home, 'env-worker.txt')).then((e) => (e.WRAPPED_BY ? e : null)));
    expect(env).toMatchObject({ WRAPPED_BY: 'test-runtime', RUNTIME_VAR: `worker:${after.meta.worker_spawn}`, ORANGE_TASK_ID: task.meta.id, PWD: box.home });
    // Written right after the environment: it may be empty for a moment (truncated, not yet written).
    expect(await dumpedArgs('worker')).toBe('ends with;\n#{session_name}\n');
  });

  it('writes an executable orange shim that runs the CLI entry with this node', async () => {
    const shim = join(box.home, 'run', 'bin', 'orange');
    expect((await stat(shim)).mode & 0o777).toBe(0o755);
    const { stdout } = await execa(shim, ['agent', 'exited', '--probe']);
    expect(stdout).toBe('');
    const calls = (await readFile(box.cliCalls, 'utf8')).trim().split('\n').map((l) => JSON.parse(l).argv);
    expect(calls).toContainEqual(['agent', 'exited', '--probe']);
  });

  it('does nothing when the worker is already running (idempotent)', async () => {
    const task = await box.newTask({ branch: 'idem' });
    const before = await box.read(task);
    await box.runAction(task, 'spawn_agent');
    const after = await box.read(task);
    expect(after.meta.worker_spawn).toBe(before.meta.worker_spawn);
    expect((await box.windows()).filter((w) => w.startsWith(`demo/${task.meta.id}:`))).toEqual([`demo/${task.meta.id}:worker`]);
  });

  it('refuses to start an agent for a task without a workspace, with a clear error', async () => {
    const task = await box.newTask({ branch: 'no-ws', spawn: false });
    const error = await box.runAction(task, 'spawn_agent').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OrangeError);
    expect((error as OrangeError).code).toBe('E_RUNTIME');
    expect((error as OrangeError).message).toMatch(/has no workspace/);
    expect(await box.windows()).not.toContain(`demo/${task.meta.id}:worker`);
  });

  it('passes a prompt too long for a tmux command line through a spec file', async () => {
    const big = 'x'.repeat(20_000);
    box.setAgent(() => ['sh', '-c', 'printf %s "$1" | wc -c > "$ORANGE_HOME/long.txt"; echo "$ORANGE_TASK_ID" >> "$ORANGE_HOME/long.txt"; sleep 30', 'sh', big]);
    try {
      const task = await box.newTask({ branch: 'long-prompt' });
      const text = await eventually(() => readFile(join(box.home, 'long.txt'), 'utf8').then((t) => (t.includes('\n') && t.trim().split('\n').length === 2 ? t : null)));
      expect(text.trim().split('\n')).toEqual(['20000', task.meta.id]);
      expect(await readdir(join(box.home, 'run', 'spawns'))).toEqual([]);
    } finally {
      box.setAgent(() => ['sh', '-c', DUMP, 'sh', 'ends with;', '#{session_name}']);
    }
  });
});

describe('reviewer windows and notifications', () => {
  it('runs the reviewer in window review-1-<spawn> beside the live worker, then kill_reviewer leaves the worker running', async () => {
    const task = await box.newTask({ branch: 'review-flow' });
    const session = `demo/${task.meta.id}`;
    await box.writeSection(task, 'Plan', 'APPROACH: do it');
    await box.orange.engine.transition({ project: 'demo', id: task.meta.id }, 'working');
    await box.writeSection(task, 'Handoff', 'DONE: did it');
    await box.orange.engine.transition({ project: 'demo', id: task.meta.id }, 'agent-review');
    const inReview = await box.read(task);
    expect(inReview.meta.review_round).toBe(1);
    expect(inReview.meta.reviewer_spawn).toMatch(/^[0-9A-Za-z]{10}$/);
    expect((await box.windows()).filter((w) => w.startsWith(`${session}:`))).toEqual([`${session}:review-1-${inReview.meta.reviewer_spawn}`, `${session}:worker`]);
    expect((await box.orange.store.history('demo', task.meta.id)).at(-1)).toMatchObject({ type: 'agent.spawned', role: 'reviewer', window: `review-1-${inReview.meta.reviewer_spawn}` });
    const env = await eventually(() => readEnvDump(join(box.home, 'env-reviewer.txt')).then((e) => (e.ORANGE_TASK_ID === task.meta.id ? e : null)));
    expect(env).toMatchObject({ ORANGE_ROLE: 'reviewer', ORANGE_STATUS: 'agent-review', ORANGE_REVIEW_ROUND: '1' });
    expect(env.ORANGE_PROMPT).toContain('Review round: 1 of 2');

    await box.writeSection(task, 'Review', 'Verdict: PASS\nLooks good.');
    await box.orange.engine.transition({ project: 'demo', id: task.meta.id }, 'reviewing');
    const reviewed = await box.read(task);
    expect(reviewed.meta.reviewer_spawn).toBeNull();
    expect(reviewed.meta.worker_spawn).toBe(inReview.meta.worker_spawn);
    expect((await box.windows()).filter((w) => w.startsWith(`${session}:`))).toEqual([`${session}:worker`]);
    // The worker (sleeping, so the tty echoes what is typed) received the PASS notice.
    const pane = await eventually(async () => {
      const text = await box.tmux('capture-pane', '-p', '-J', '-t', `=${session}:=worker`);
      return text.includes('Review PASSED') ? text : null;
    });
    expect(pane).toContain('Nothing more to do unless a human asks for changes.');
  });

  it("captures an agent's window with its colours for the dashboard, long lines whole, and nothing for a window that is gone", async () => {
    box.setAgent(() => ['sh', '-c', "printf '\\033[31mred text\\033[0m plain\\n'; printf 'x%.0s' $(seq 1 150); printf ' end-of-the-long-line\\n'; exec sleep 1000"]);
    try {
      const task = await box.newTask({ branch: 'captured' });
      const runtime = box.orange.slot('runtime');
      const text = await eventually(async () => {
        const shown = await runtime.capture?.((await box.read(task)).meta, 'worker');
        return shown?.includes('plain') ? shown : null;
      });
      expect(text).toMatch(/\u001b\[31mred text\u001b\[(0|39)?m plain/);
      // Wrapped by tmux at the window's width, it comes back as the one line the agent printed.
      const long = await eventually(async () => (await runtime.capture?.((await box.read(task)).meta, 'worker'))?.split('\n').find((l) => l.includes('end-of-the-long-line')));
      expect(long).toMatch(/^x{150} end-of-the-long-line/);
      expect(await runtime.capture?.((await box.read(task)).meta, 'reviewer')).toBeNull();
    } finally {
      box.setAgent(() => ['sh', '-c', DUMP, 'sh', 'ends with;', '#{session_name}']);
    }
  });

  it('types notification text literally: no key names, no shell, no tmux command splitting', async () => {
    box.setAgent(() => ['sh', '-c', 'cat > "$ORANGE_HOME/typed.txt"']);
    try {
      const task = await box.newTask({ branch: 'literal' });
      const session = `demo/${task.meta.id}`;
      await eventually(async () => (await box.windows()).includes(`${session}:worker`));
      const client = new TmuxClient('tmux', box.socket);
      const text = `$HOME; touch ${box.home}/pwned "quotes" 'single' \`id\` C-c Enter #{session_name} \\ end;`;
      await client.typeLine(`=${session}:=worker`, text, 50);
      const typed = await eventually(() => readFile(join(box.home, 'typed.txt'), 'utf8').then((t) => (t.endsWith('\n') ? t : null)));
      expect(typed).toBe(`${text}\n`);
      expect(existsSync(join(box.home, 'pwned'))).toBe(false);
      expect((await box.read(task)).meta.status).toBe('planning');
    } finally {
      box.setAgent(() => ['sh', '-c', DUMP, 'sh', 'ends with;', '#{session_name}']);
    }
  });

  it('tells a live worker that review failed (agent-review → working)', async () => {
    box.setAgent(() => ['sh', '-c', 'cat > "$ORANGE_HOME/notice-$ORANGE_TASK_ID.txt"']);
    try {
      const task = await box.newTask({ branch: 'fail-notice' });
      await eventually(async () => (await box.windows()).includes(`demo/${task.meta.id}:worker`));
      await box.runAction(task, 'notify_worker', { from: 'agent-review', to: 'working' });
      const typed = await eventually(() => readFile(join(box.home, `notice-${task.meta.id}.txt`), 'utf8').then((t) => (t.endsWith('\n') ? t : null)));
      expect(typed).toMatch(/^\[orange\] Review round 0 FAILED\. Read ## Review .*orange task update --status agent-review\n$/);
    } finally {
      box.setAgent(() => ['sh', '-c', DUMP, 'sh', 'ends with;', '#{session_name}']);
    }
  });

  it('sends a line to a live worker through the runtime slot, and says false when the worker is gone', async () => {
    box.setAgent(() => ['sh', '-c', 'cat > "$ORANGE_HOME/line-$ORANGE_TASK_ID.txt"']);
    try {
      const task = await box.newTask({ branch: 'send-line' });
      await eventually(async () => (await box.windows()).includes(`demo/${task.meta.id}:worker`));
      const runtime = box.orange.slot('runtime');
      const meta = (await box.read(task)).meta;
      expect(await runtime.sendLine?.(meta, 'worker', '[orange] CI failed: `test` $(id)')).toBe(true);
      const typed = await eventually(() => readFile(join(box.home, `line-${task.meta.id}.txt`), 'utf8').then((t) => (t.endsWith('\n') ? t : null)));
      expect(typed).toBe('[orange] CI failed: `test` $(id)\n');
      expect(await runtime.sendLine?.(meta, 'reviewer', 'nobody there')).toBe(false);
      expect(runtime.attachCommand?.(meta)).toEqual(['tmux', '-L', box.socket, 'attach-session', '-t', `=demo/${task.meta.id}`]);
    } finally {
      box.setAgent(() => ['sh', '-c', DUMP, 'sh', 'ends with;', '#{session_name}']);
    }
  });

  it("keeps a worker alive when a line from outside carries Ctrl-C, ESC and BEL: they arrive as nothing, the text as text", async () => {
    box.setAgent(() => ['sh', '-c', 'cat > "$ORANGE_HOME/ctrl-$ORANGE_TASK_ID.txt"']);
    try {
      const task = await box.newTask({ branch: 'ctrl-chars' });
      await eventually(async () => (await box.windows()).includes(`demo/${task.meta.id}:worker`));
      const runtime = box.orange.slot('runtime');
      const meta = (await box.read(task)).meta;
      // A CI check named "lint" followed by two Ctrl-C bytes, as the reactions plugin would pass it on.
      expect(await runtime.sendLine?.(meta, 'worker', '[orange] CI failed: lint\u0003\u0003 \u001b[2J\u0007done')).toBe(true);
      const typed = await eventually(() => readFile(join(box.home, `ctrl-${task.meta.id}.txt`), 'utf8').then((t) => (t.endsWith('\n') ? t : null)));
      expect(typed).toBe('[orange] CI failed: lint [2Jdone\n');
      // `cat` was not interrupted: the worker's window is still there, its agent running.
      expect(await box.windows()).toContain(`demo/${task.meta.id}:worker`);
      expect((await box.orange.slot('runtime').snapshot()).isAlive((await box.read(task)).meta, 'worker')).toBe(true);
    } finally {
      box.setAgent(() => ['sh', '-c', DUMP, 'sh', 'ends with;', '#{session_name}']);
    }
  });

  it('starts a worker on demand when notify_worker finds none (task created at agent-review)', async () => {
    const task = await box.newTask({ branch: 'on-demand', status: 'agent-review' });
    const session = `demo/${task.meta.id}`;
    const created = await box.read(task);
    expect(created.meta.worker_spawn).toBeNull();
    expect((await box.windows()).filter((w) => w.startsWith(`${session}:`))).toEqual([`${session}:review-1-${created.meta.reviewer_spawn}`]);

    await box.writeSection(task, 'Review', 'Verdict: FAIL\nFix the tests.');
    await box.orange.engine.transition({ project: 'demo', id: task.meta.id }, 'working');
    const after = await box.read(task);
    expect(after.meta.status).toBe('working');
    expect(after.meta.worker_spawn).toMatch(/^[0-9A-Za-z]{10}$/);
    expect(after.meta.reviewer_spawn).toBeNull();
    expect((await box.windows()).filter((w) => w.startsWith(`${session}:`))).toEqual([`${session}:worker`]);
    const env = await eventually(() => readEnvDump(join(box.home, 'env-worker.txt')).then((e) => (e.ORANGE_TASK_ID === task.meta.id ? e : null)));
    expect(env.ORANGE_STATUS).toBe('working');
    // The on-demand worker gets the respawn prompt: it resumes from TASK.md.
    expect(env.ORANGE_PROMPT).toContain('# Resuming: test task');
  });

  it('starts no worker when a review passes on a task that has none: reviewing is a person\'s turn', async () => {
    const task = await box.newTask({ branch: 'no-worker-needed', status: 'agent-review' });
    const session = `demo/${task.meta.id}`;
    await box.writeSection(task, 'Review', 'Verdict: PASS\nLooks right.');
    await box.orange.engine.transition({ project: 'demo', id: task.meta.id }, 'reviewing');
    const after = await box.read(task);
    expect(after.meta).toMatchObject({ status: 'reviewing', worker_spawn: null, reviewer_spawn: null });
    expect((await box.windows()).filter((w) => w.startsWith(`${session}:`))).toEqual([]);
  });
});

describe('kill_session', () => {
  it('clears the spawn ids and kills the session, leaving other tasks’ sessions alone', async () => {
    const other = await box.newTask({ branch: 'cancel-me2' });
    const task = await box.newTask({ branch: 'cancel-me' });
    await box.orange.engine.transition({ project: 'demo', id: task.meta.id }, 'cancelled');
    const after = await box.read(task);
    expect(after.meta.worker_spawn).toBeNull();
    expect(after.meta.reviewer_spawn).toBeNull();
    const windows = await box.windows();
    expect(windows).not.toContain(`demo/${task.meta.id}:worker`);
    expect(windows).toContain(`demo/${other.meta.id}:worker`);
    // Killing it again (or a task whose session never existed) is fine.
    await box.runAction(after, 'kill_session');
    expect(await box.windows()).toContain(`demo/${other.meta.id}:worker`);
    expect((await box.read(other)).meta.worker_spawn).not.toBeNull();
  });

  it("gives each reviewer its own window even when the workflow never counts rounds, replacing the last one's", async () => {
    const task = await box.newTask({ branch: 'no-rounds', status: 'agent-review' });
    const session = `demo/${task.meta.id}`;
    // A workflow without increment_review_round: every reviewer runs in round 0.
    await box.orange.store.patch('demo', task.meta.id, { review_round: 0 });
    const first = (await box.read(task)).meta.reviewer_spawn as string;
    await box.runAction(task, 'kill_reviewer');
    await box.runAction(task, 'spawn_reviewer');
    const firstRound0 = (await box.read(task)).meta.reviewer_spawn as string;
    // Its exit already handled while its window lingers (a slow shutdown): the next one still gets a new name.
    await box.orange.store.patch('demo', task.meta.id, { reviewer_spawn: null });
    await box.runAction(task, 'spawn_reviewer');
    const second = (await box.read(task)).meta;
    expect(new Set([first, firstRound0, second.reviewer_spawn]).size).toBe(3);
    expect((await box.windows()).filter((w) => w.startsWith(`${session}:review-`))).toEqual([`${session}:review-0-${second.reviewer_spawn}`]);
    const snapshot = await box.orange.slot('runtime').snapshot();
    expect(snapshot.isAlive(second, 'reviewer')).toBe(true);
    expect(snapshot.isAlive({ ...second, reviewer_spawn: firstRound0 }, 'reviewer')).toBe(false);
  });

  it('kill_reviewer does not touch a window that only looks like a reviewer window (review-10)', async () => {
    const task = await box.newTask({ branch: 'rounds' });
    const ws = (await box.read(task)).meta.workspace!;
    await box.tmux('new-window', '-d', '-t', `=demo/${task.meta.id}:`, '-n', 'review-10', '-c', ws, 'sleep', '30');
    await box.orange.store.patch('demo', task.meta.id, { review_round: 1 });
    await box.runAction(task, 'kill_reviewer');
    expect(await box.windows()).toContain(`demo/${task.meta.id}:review-10`);
  });

  it('hands the kill of the caller’s own session to a detached reaper that waits for the caller to exit, however long it takes', async () => {
    const task = await box.newTask({ branch: 'self-kill' });
    const session = `demo/${task.meta.id}`;
    const agents = await panePids(new TmuxClient('tmux', box.socket), 'session', `=${session}`);
    // A call still recording its move on a loaded machine: longer than the 5 s the reaper once gave it.
    const callerStarted = Date.now();
    const caller = spawn('sleep', ['6.5']);
    const callerGone = new Promise((resolve) => caller.on('exit', resolve));
    box.orange.hooks.actions.for('test_self_kill').tapPromise('test', (ctx) =>
      killTaskSession(ctx, { client: new TmuxClient('tmux', box.socket), reaperPath: windowReaperPath(), callerPid: caller.pid! }),
    );
    const [pane, socketPath] = (await box.tmux('display-message', '-p', '-t', `=${session}:=worker`, '#{pane_id}\t#{socket_path}')).split('\t');
    process.env.TMUX = `${socketPath},1,0`;
    process.env.TMUX_PANE = pane;
    try {
      await box.runAction(task, 'test_self_kill');
    } finally {
      delete process.env.TMUX;
      delete process.env.TMUX_PANE;
    }
    expect((await box.read(task)).meta.worker_spawn).toBeNull();
    // The caller is still running: its window must still be there, until the caller is gone.
    expect(await box.windows()).toContain(`${session}:worker`);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, callerStarted + 6_000 - Date.now())));
    expect(caller.exitCode, 'the caller outlived the check').toBeNull();
    expect(await box.windows()).toContain(`${session}:worker`);
    await callerGone;
    await eventually(async () => !(await box.windows()).includes(`${session}:worker`), 8_000);
    await eventually(async () => processTree(await listProcesses(), agents).every((p) => p.zombie), 5_000);
    await eventually(async () => (await readFile(join(box.home, 'orange.log'), 'utf8')).includes('own window killed after the caller exited'));
  });

  it('kills an agent that ignores SIGHUP and SIGTERM before cancel completes', async () => {
    box.setAgent(() => ['sh', '-c', "trap '' HUP TERM; sleep 1000 & wait; sleep 1000"]);
    try {
      const task = await box.newTask({ branch: 'stubborn' });
      const session = `demo/${task.meta.id}`;
      const client = new TmuxClient('tmux', box.socket);
      const agents = await panePids(client, 'session', `=${session}`);
      await eventually(async () => processTree(await listProcesses(), agents).length >= 3);
      const result = await box.orange.engine.transition({ project: 'demo', id: task.meta.id }, 'cancelled');
      expect(result.failedHooks).toEqual([]);
      expect(await box.windows()).not.toContain(`${session}:worker`);
      expect(processTree(await listProcesses(), agents).filter((p) => !p.zombie)).toEqual([]);
    } finally {
      box.setAgent(() => ['sh', '-c', DUMP, 'sh', 'ends with;', '#{session_name}']);
    }
  });
});

describe('runtime slot', () => {
  it('reads liveness of every worker and reviewer with one tmux process', async () => {
    const task = await box.newTask({ branch: 'snap' });
    const counter = join(box.home, 'tmux-calls.txt');
    const countingTmux = join(box.home, 'counting-tmux.sh');
    await execa('sh', ['-c', `printf '%s\\n' '#!/bin/sh' 'echo call >> "${counter}"' 'exec tmux "$@"' > "${countingTmux}" && chmod +x "${countingTmux}"`]);
    const { Orange, OrangePaths } = await import('@orange/core');
    const counted = await Orange.create({ defaults: false, plugins: [tmux({ socketName: box.socket, tmuxBin: countingTmux }), otherActions()] }, { paths: new OrangePaths(box.home) });
    const runtime = counted.slot('runtime');
    const meta = (await box.read(task)).meta;
    const snapshot = await runtime.snapshot();
    expect(snapshot.isAlive(meta, 'worker')).toBe(true);
    expect(snapshot.isAlive(meta, 'reviewer')).toBe(false);
    expect(snapshot.isAlive({ ...meta, id: 'V1StGXR8Z5jdHi6BmyT4a', tmux_session: null }, 'worker')).toBe(false);
    expect(snapshot.sessions).toContain(`demo/${task.meta.id}`);
    expect(snapshot.processes).toBe(1);
    expect((await readFile(counter, 'utf8')).trim().split('\n')).toHaveLength(1);
    expect(runtime.sessionName(meta)).toBe(`demo/${task.meta.id}`);
  });

  it('reports nothing alive when no tmux server is running', async () => {
    const { Orange, OrangePaths } = await import('@orange/core');
    const lonely = await Orange.create({ defaults: false, plugins: [tmux({ socketName: `${box.socket}-none` }), otherActions()] }, { paths: new OrangePaths(box.home) });
    const snapshot = await lonely.slot('runtime').snapshot();
    const meta = (await box.newTask({ branch: 'x', spawn: false })).meta;
    expect(snapshot.isAlive(meta, 'worker')).toBe(false);
    expect(snapshot.sessions).toEqual([]);
    await lonely.slot('runtime').killSession('demo/x');
  });

  it('counts a dead pane kept by remain-on-exit as not alive, and a spawn replaces it', async () => {
    box.setAgent(() => ['sleep', '1']);
    let task;
    try {
      task = await box.newTask({ branch: 'remain' });
    } finally {
      box.setAgent(() => ['sh', '-c', DUMP, 'sh', 'ends with;', '#{session_name}']);
    }
    const session = `demo/${task.meta.id}`;
    await box.tmux('set-option', '-w', '-t', `=${session}:=worker`, 'remain-on-exit', 'on');
    await eventually(async () => (await box.tmux('display-message', '-p', '-t', `=${session}:=worker`, '#{pane_dead}')) === '1');
    const meta = (await box.read(task)).meta;
    expect((await box.orange.slot('runtime').snapshot()).isAlive(meta, 'worker')).toBe(false);
    await box.runAction(task, 'spawn_agent', { cause: 'respawn' });
    const after = (await box.read(task)).meta;
    expect(after.worker_spawn).not.toBe(meta.worker_spawn);
    expect((await box.windows()).filter((w) => w.startsWith(`${session}:`))).toEqual([`${session}:worker`]);
    expect((await box.orange.slot('runtime').snapshot()).isAlive(after, 'worker')).toBe(true);
  });

  it('kills a session by exact name only, and says whether it was there to kill', async () => {
    const task = await box.newTask({ branch: 'exact-b' });
    const session = `demo/${task.meta.id}`;
    expect(await box.orange.slot('runtime').killSession(session.slice(0, -1))).toBe(false);
    expect(await box.windows()).toContain(`${session}:worker`);
    expect(await box.orange.slot('runtime').killSession(session)).toBe(true);
    expect(await box.windows()).not.toContain(`${session}:worker`);
    // Gone already (another process's kill got there first): quietly false, no error.
    expect(await box.orange.slot('runtime').killSession(session)).toBe(false);
  });
});

describe('exit reports', () => {
  it('reports the agent exit to the CLI within a second, with project, task, role, spawn and code', async () => {
    box.setAgent(() => ['sh', '-c', 'node -e "console.log(Date.now())" > "$ORANGE_HOME/exited-at.txt"; exit 3']);
    try {
      const task = await box.newTask({ branch: 'exit-report' });
      const spawn = (await box.read(task)).meta.worker_spawn;
      const report = await eventually(async () => {
        const lines = (await readFile(box.cliCalls, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { at: number; argv: string[] });
        return lines.find((l) => l.argv.includes(task.meta.id));
      });
      expect(report.argv).toEqual(['agent', 'exited', '--project', 'demo', '--task', task.meta.id, '--role', 'worker', '--spawn', spawn, '--code', '3']);
      const exitedAt = Number(await readFile(join(box.home, 'exited-at.txt'), 'utf8'));
      expect(report.at - exitedAt).toBeLessThan(1_000);
      await eventually(async () => !(await box.windows()).includes(`demo/${task.meta.id}:worker`));
    } finally {
      box.setAgent(() => ['sh', '-c', DUMP, 'sh', 'ends with;', '#{session_name}']);
    }
  });
});

describe('sessionName', () => {
  it('agrees with the name the spawned session got', () => {
    expect(sessionName({ project: 'demo', id: 'V1StGXR8Z5jdHi6BmyT4a' })).toBe('demo/V1StGXR8Z5jdHi6BmyT4a');
  });
});
