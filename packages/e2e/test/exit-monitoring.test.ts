import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { Sandbox } from './sandbox.js';

let box: Sandbox | undefined;
afterEach(async () => {
  await box?.cleanup();
  box = undefined;
});

const events = async (b: Sandbox, id: string, type: string) => (await b.history(id)).filter((e) => e.type === type);


describe('exit monitoring', () => {
  it('advances planning → working when the agent exits with a valid Plan, with no poll running', async () => {
    box = await Sandbox.create();
    const id = await box.createTask(['plan then leave'], 'agent.worker: plan-then-exit\n');
    const task = await box.waitForStatus(id, 'working', 15_000);
    expect(task.meta.worker_spawn).toBeNull();
    // The status is written before the move's actions; the ledger's auto.advanced comes after them.
    await box.waitFor('the auto-advance record', async () => (await events(box!, id, 'auto.advanced')).length === 1);
    expect(await events(box, id, 'auto.advanced')).toMatchObject([{ from: 'planning', to: 'working' }]);
    // Acted on within about a second of the exit.
    const exited = (await events(box, id, 'agent.exited'))[0]!;
    const changed = (await events(box, id, 'status.changed')).at(-1)!;
    expect(Date.parse(changed.timestamp) - Date.parse(exited.timestamp)).toBeLessThan(2_000);
  });

  it('advances working → agent-review and spawns the reviewer when the worker exits with a Handoff', async () => {
    box = await Sandbox.create();
    const id = await box.createTask(['hand off then leave'], 'agent.worker: handoff-then-exit\n');
    const task = await box.waitForStatus(id, 'reviewing', 30_000);
    expect(task.meta.review_round).toBe(1);
    expect(await events(box, id, 'auto.advanced')).toMatchObject([{ from: 'working', to: 'agent-review' }]);
  });

  it('advances agent-review → reviewing when the reviewer exits with a PASS verdict but no request', async () => {
    box = await Sandbox.create();
    const id = await box.createTask(['quiet reviewer'], 'agent.reviewer: silent\n');
    await box.waitForStatus(id, 'reviewing', 30_000);
    await box.waitFor('the auto-advance record', async () => (await events(box!, id, 'auto.advanced')).length === 1);
    expect(await events(box, id, 'auto.advanced')).toMatchObject([{ from: 'agent-review', to: 'reviewing' }]);
  });

  it('counts a crash without an artifact, waits for respawn, and moves to stuck on the second crash', async () => {
    box = await Sandbox.create();
    const id = await box.createTask(['crashy worker'], 'agent.worker: crash\n');
    await box.waitFor('the first crash', async () => (await events(box!, id, 'agent.crashed')).length === 1, 15_000);
    const crashed = await box.task(id);
    expect(crashed.meta).toMatchObject({ status: 'planning', crash_count: 1, worker_spawn: null });
    const respawn = await box.orange(['task', 'respawn', id]);
    expect(respawn.stderr).toBe('');
    await box.waitForStatus(id, 'stuck', 15_000);
    // The status is written before the transition's hooks run; the crash count is reset after them.
    await box.waitFor('the auto-advance record', async () => (await events(box!, id, 'auto.advanced')).length === 1);
    expect((await box.task(id)).meta.crash_count).toBe(0);
    expect(await events(box, id, 'agent.crashed')).toMatchObject([
      { status: 'planning', crash_count: 1 },
      { status: 'planning', crash_count: 2 },
    ]);
    expect(await events(box, id, 'auto.advanced')).toMatchObject([{ from: 'planning', to: 'stuck' }]);
  });

  it('respawns a crashed reviewer automatically', async () => {
    box = await Sandbox.create();
    const id = await box.createTask(['reviewer crashes once'], 'agent.reviewer: crash-once\n');
    await box.waitForStatus(id, 'reviewing', 45_000);
    const reviewers = (await events(box, id, 'agent.spawned')).filter((e) => e.role === 'reviewer');
    expect(reviewers).toHaveLength(2);
    expect(await events(box, id, 'agent.crashed')).toMatchObject([{ status: 'agent-review', crash_count: 1, role: 'reviewer' }]);
  });

  it('marks a crashed worker in reviewing without moving the task', async () => {
    box = await Sandbox.create();
    const id = await box.createTask(['reviewed work'], '');
    const task = await box.waitForStatus(id, 'reviewing', 30_000);
    await box.waitFor('worker notified', async () => (await box!.agentLog(id)).includes('review passed'));
    await box.tmux('kill-window', '-t', `=demo/${task.meta.id}:worker`);
    await box.waitFor('the exit to be handled', async () => (await box!.task(id)).meta.worker_spawn === null, 10_000);
    expect((await box.task(id)).meta).toMatchObject({ status: 'reviewing', crash_count: 0 });
  });

  it('catches a session killed from outside with the poll, once even with two monitors', async () => {
    box = await Sandbox.create();
    const id = await box.createTask(['killed from outside'], 'agent.pace: 60000\n');
    const task = await box.waitFor('the worker to start', async () => (await box!.task(id)).meta.worker_spawn !== null, 15_000).then(() => box!.task(id));
    await box.killWithoutReport(`demo/${task.meta.id}`, 'worker');
    expect((await box.task(id)).meta.worker_spawn).not.toBeNull();
    const [a, b] = await Promise.all([box.orange(['monitor', '--once']), box.orange(['monitor', '--once'])]);
    expect([a.code, b.code]).toEqual([0, 0]);
    const after = await box.task(id);
    expect(after.meta).toMatchObject({ status: 'planning', crash_count: 1, worker_spawn: null });
    expect(await events(box, id, 'agent.crashed')).toHaveLength(1);
  });

  it('picks up where it was after a monitor restart', async () => {
    box = await Sandbox.create({ pollIntervalMs: 300 });
    const monitor = execa(process.execPath, [(await import('./sandbox.js')).CLI, 'monitor'], { env: box.env, extendEnv: false, cwd: box.repo, reject: false, forceKillAfterDelay: 30_000 });
    // Ready (signal handlers set) once it says what it monitors: a SIGTERM before that kills it
    // outright (no exit code), which is not the clean stop this test is about.
    let first = '';
    monitor.stdout?.on('data', (chunk: Buffer) => (first += chunk.toString()));
    await box.waitFor('the monitor to start', async () => first.includes('monitoring'), 15_000);
    const id = await box.createTask(['restart me'], 'agent.pace: 60000\n');
    await box.waitFor('the worker to start', async () => (await box!.task(id)).meta.worker_spawn !== null, 15_000);
    monitor.kill('SIGTERM');
    const stopped = await monitor;
    expect(stopped.exitCode).toBe(0);
    const task = await box.task(id);
    await box.killWithoutReport(`demo/${task.meta.id}`, 'worker');
    // A pass in progress finishes before the monitor stops; on a loaded machine that can outlast
    // execa's default 5 s before it force-kills, so give it longer.
    const again = execa(process.execPath, [(await import('./sandbox.js')).CLI, 'monitor'], { env: box.env, extendEnv: false, cwd: box.repo, reject: false, forceKillAfterDelay: 30_000 });
    // Ready (signal handlers set) once it says what it monitors; only then may SIGINT stop it cleanly.
    let said = '';
    again.stdout?.on('data', (chunk: Buffer) => (said += chunk.toString()));
    await box.waitFor('the restarted monitor to start', async () => said.includes('monitoring'), 15_000);
    await box.waitFor('the restarted monitor to handle the death', async () => (await box!.task(id)).meta.crash_count === 1, 20_000);
    again.kill('SIGINT');
    const stoppedAgain = await again;
    expect(stoppedAgain.exitCode, `signal ${stoppedAgain.signal}; stderr: ${stoppedAgain.stderr}`).toBe(0);
  });
});
