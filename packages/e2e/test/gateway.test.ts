import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { connect } from 'node:net';
import { execa, type ResultPromise } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, Sandbox } from './sandbox.js';

let box: Sandbox | undefined;
let monitor: ResultPromise | undefined;
afterEach(async () => {
  monitor?.kill('SIGTERM');
  await monitor?.catch(() => undefined);
  monitor = undefined;
  await box?.cleanup();
  box = undefined;
});

function startMonitor(b: Sandbox): ResultPromise {
  return execa(process.execPath, [CLI, 'monitor', '--interval', '1000'], { cwd: b.repo, env: b.env, extendEnv: false, reject: false, all: true });
}

async function logLines(b: Sandbox): Promise<Array<Record<string, unknown>>> {
  const text = await readFile(b.paths.logFile, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

async function waitForGateway(b: Sandbox): Promise<void> {
  await b.waitFor('the gateway to listen', async () => (await logLines(b)).some((l) => l.msg === 'gateway listening'), 30_000);
}

/** One raw request on the gateway socket, as any process of the user could send it. */
function rawCall(socket: string, request: unknown): Promise<{ stdout: string; stderr: string; exit: number }> {
  return new Promise((resolve, reject) => {
    const conn = connect(socket);
    let text = '';
    conn.on('connect', () => conn.write(`${typeof request === 'string' ? request : JSON.stringify(request)}\n`));
    conn.on('data', (chunk) => (text += String(chunk)));
    conn.on('close', () => {
      try {
        resolve(JSON.parse(text.trim()) as { stdout: string; stderr: string; exit: number });
      } catch {
        reject(new Error(`no reply: ${JSON.stringify(text)}`));
      }
    });
    conn.on('error', reject);
  });
}

/** The Orange variables of the task's live worker, read from its wrapper process (the pane's). */
async function workerIdentity(b: Sandbox, id: string): Promise<Record<string, string>> {
  const panes = await b.tmux('list-panes', '-a', '-F', '#{session_name}\t#{window_name}\t#{pane_pid}');
  const line = panes.stdout.split('\n').find((l) => l.includes(id) && l.split('\t')[1] === 'worker');
  if (!line) throw new Error(`no worker pane for ${id}: ${panes.stdout}`);
  const environ = await readFile(`/proc/${line.split('\t')[2]}/environ`, 'utf8');
  const env: Record<string, string> = {};
  for (const entry of environ.split('\0')) {
    const at = entry.indexOf('=');
    if (at > 0 && entry.startsWith('ORANGE_') && !entry.startsWith('ORANGE_PROMPT=')) env[entry.slice(0, at)] = entry.slice(at + 1);
  }
  return env;
}

describe('the agent gateway (orange monitor answering agents over a Unix socket)', () => {
  it("serves agents' requests and exit reports while the monitor runs: a whole task reaches done (its worker's exit moving it on), and the reviewer's own window closes after its call", async () => {
    box = await Sandbox.create();
    monitor = startMonitor(box);
    await waitForGateway(box);
    // The worker leaves after its handoff: its exit report, through the gateway, moves the task on.
    const id = await box.createTask(['gateway/served', 'A task whose agents are answered by the monitor'], 'agent.worker: handoff-then-exit');
    await box.waitForStatus(id, 'reviewing', 60_000);
    const merged = await box.orange(['task', 'merge', id, '--yes', '--strategy', 'merge']);
    expect(merged.code, merged.stderr).toBe(0);
    await box.waitForStatus(id, 'done');

    const lines = await logLines(box);
    const served = lines.filter((l) => l.msg === 'agent call served' && l.task === id).map((l) => `${String(l.command)} → ${String(l.exit)}`);
    const explain = `served calls: ${served.join(', ')}\nlog:\n${lines.map((l) => JSON.stringify(l)).join('\n')}`;
    // The worker asked for working and left; its exit report moved the task to agent-review; the reviewer asked for reviewing.
    expect(served.filter((s) => s === 'task update → 0').length, explain).toBeGreaterThanOrEqual(2);
    expect(served, explain).toContain('agent exited → 0');
    const history = await box.history(id);
    expect(history.some((e) => e.type === 'status.changed' && e.from === 'working' && e.to === 'agent-review' && e.cause === 'auto'), explain).toBe(true);
    // A served call's own window is closed by the monitor once the call has gone, with no reaper process.
    // That kill starts when the reviewer's client hangs up, after the reviewing move: nothing orders it before the merge.
    const ownWindowKilled = async () => (await logLines(box!)).some((l) => l.msg === 'own window killed after the served call ended' && l.task === id);
    await box.waitFor("the reviewer's own window to be killed after its served call", ownWindowKilled, 10_000).catch(() => undefined);
    expect(await ownWindowKilled(), explain).toBe(true);
    expect(lines.some((l) => l.msg === 'own windows handed to the window reaper'), explain).toBe(false);
  }, 120_000);

  it('refuses a call without an identity, with a forged one, for another task, for a command it does not serve, and a path to read; takes its own task’s section from standard input', async () => {
    box = await Sandbox.create();
    monitor = startMonitor(box);
    await waitForGateway(box);
    const slow = ['agent.pace: 60000'].join('\n');
    const mine = await box.createTask(['gateway/mine', 'An agent that plans slowly'], slow);
    const other = await box.createTask(['gateway/other', 'Another task'], slow);
    await box.waitForStatus(mine, 'planning');
    await box.waitFor('the worker window', async () => (await box!.windows()).some((w) => w.includes(mine) && w.endsWith(':worker')));
    const identity = await workerIdentity(box, mine);
    const socket = box.paths.gatewaySocket;
    const base = { v: 1, cwd: box.repo, stdin: '', pid: process.pid };

    const anonymous = await rawCall(socket, { ...base, argv: ['task', 'show', mine], env: {} });
    expect(anonymous.exit).toBe(1);
    expect(anonymous.stderr).toMatch(/^orange: the gateway serves only agents' calls/);
    const forged = await rawCall(socket, { ...base, argv: ['task', 'show'], env: { ...identity, ORANGE_AGENT_SECRET: 'guessed' } });
    expect(forged.exit).toBe(1);
    expect(forged.stderr).toMatch(/is not one Orange gave/);
    const another = await rawCall(socket, { ...base, argv: ['task', 'show', other], env: identity });
    expect(another.exit).toBe(1);
    expect(another.stderr).toMatch(/reaches only its own task/);
    const unserved = await rawCall(socket, { ...base, argv: ['task', 'merge', mine, '--yes'], env: identity });
    expect(unserved.exit).toBe(2);
    expect(unserved.stderr).toMatch(/does not serve orange task merge/);
    const path = await rawCall(socket, { ...base, argv: ['task', 'section', 'set', 'Notes', '--file', '/etc/hostname'], env: identity });
    expect(path.exit).toBe(1);
    expect(path.stderr).toMatch(/as standard input/);
    const garbage = await rawCall(socket, 'not json');
    expect(garbage.exit).toBe(2);
    expect((await box.task(mine)).body).not.toMatch(/## Notes/);

    const own = await rawCall(socket, { ...base, argv: ['task', 'section', 'set', 'Notes', '-'], env: identity, stdin: 'written through the gateway\n' });
    expect(own, JSON.stringify(own)).toMatchObject({ exit: 0 });
    expect((await box.task(mine)).body).toMatch(/## Notes\n+written through the gateway/);
    const shown = await rawCall(socket, { ...base, argv: ['task', 'show', '--json'], env: identity });
    expect(JSON.parse(shown.stdout).task?.id ?? JSON.parse(shown.stdout).id).toBe(mine);
    expect((await box.task(other)).body).not.toMatch(/## Notes/);

    // The agent's own `orange`, as it calls it: through the gateway while the monitor runs, through
    // the CLI once it stopped; standard input reaches the section either way.
    const agentEnv = { ...identity, PATH: box.env.PATH ?? '' };
    const viaGateway = await box.orange(['task', 'section', 'set', 'Served', '-'], { env: agentEnv, input: 'piped to the gateway\n' });
    expect(viaGateway, JSON.stringify(viaGateway)).toMatchObject({ code: 0 });
    // The `orange` on the agent's PATH is the gateway's Perl client; once no Orange listens, it hands the call to the CLI.
    const shim = join(box.paths.runDir, 'bin', 'orange');
    expect(await readFile(shim, 'utf8')).toMatch(/^#!\/\S+\/perl\n/);
    const { repo, env: boxEnv } = box;
    const shimCall = (section: string, input: string) => execa(shim, ['task', 'section', 'set', section, '-'], { cwd: repo, env: { ...boxEnv, ...agentEnv }, extendEnv: false, input, reject: false });
    const viaPerl = await shimCall('Perl', 'piped through the Perl client\n');
    expect(viaPerl.exitCode, viaPerl.stderr).toBe(0);
    monitor.kill('SIGTERM');
    await monitor;
    monitor = undefined;
    expect(existsSync(socket)).toBe(false);
    const viaCli = await box.orange(['task', 'section', 'set', 'Direct', '-'], { env: agentEnv, input: 'piped to the CLI\n' });
    expect(viaCli, JSON.stringify(viaCli)).toMatchObject({ code: 0 });
    const perlToCli = await shimCall('Handed', 'handed by the Perl client to the CLI\n');
    expect(perlToCli.exitCode, perlToCli.stderr).toBe(0);
    const body = (await box.task(mine)).body;
    expect(body).toMatch(/## Served\n+piped to the gateway/);
    expect(body).toMatch(/## Perl\n+piped through the Perl client/);
    expect(body).toMatch(/## Direct\n+piped to the CLI/);
    expect(body).toMatch(/## Handed\n+handed by the Perl client to the CLI/);
    const served = (await logLines(box)).filter((l) => l.msg === 'agent call served' && l.command === 'task section set' && l.exit === 0).length;
    // The raw own-section call, the Node client's and the Perl client's were served; the last two went to the CLI.
    expect(served).toBe(3);
  }, 120_000);

  it("serves a person's scripted create and merge, refuses a merge it cannot ask about as the CLI does, and leaves a caller with other git variables to its own CLI", async () => {
    box = await Sandbox.create();
    monitor = startMonitor(box);
    await waitForGateway(box);
    const servedPerson = async () => (await logLines(box!)).filter((l) => l.msg === "person's call served").map((l) => `${String(l.command)} → ${String(l.exit)}`);
    const first = await box.createTask(['gateway/person-1', 'Created by a script']);
    const second = await box.createTask(['gateway/person-2', 'Merged by a script with another committer']);
    expect(await servedPerson()).toEqual(['task create → 0', 'task create → 0']);
    await box.waitForStatus(first, 'reviewing', 60_000);
    await box.waitForStatus(second, 'reviewing', 60_000);

    // No terminal to ask on: refused exactly as the CLI refuses it, and nothing changes.
    const unconfirmed = await box.orange(['task', 'merge', first]);
    expect(unconfirmed.code).toBe(1);
    expect(unconfirmed.stderr).toMatch(/^orange: .*needs confirmation and there is no terminal to ask; pass --yes$/);
    expect((await box.task(first)).meta.status).toBe('reviewing');
    const merged = await box.orange(['task', 'merge', first, '--yes', '--strategy', 'merge']);
    expect(merged, JSON.stringify(merged)).toMatchObject({ code: 0 });
    await box.waitForStatus(first, 'done');

    // Another committer than the monitor's: its merge must commit as that person, so the CLI runs it.
    const other = await box.orange(['task', 'merge', second, '--yes', '--strategy', 'merge'], { env: { GIT_COMMITTER_NAME: 'Someone Else' } });
    expect(other, JSON.stringify(other)).toMatchObject({ code: 0 });
    await box.waitForStatus(second, 'done');
    expect(await box.git(box.origin, 'log', '-1', '--format=%cn', 'main')).toBe('Someone Else');
    expect(await servedPerson()).toEqual(['task create → 0', 'task create → 0', 'task merge → 1', 'task merge → 0']);

    // The people's socket is not an agent's way around its own: a call with an identity is refused.
    const withIdentity = await rawCall(box.paths.peopleSocket, { v: 1, cwd: box.repo, stdin: '', pid: process.pid, argv: ['task', 'cancel', first, '--yes'], env: { ORANGE_SPAWN_ID: 'x', ORANGE_AGENT_SECRET: 'y', ORANGE_TASK_ID: first, ORANGE_PROJECT: 'demo' } });
    expect(withIdentity.exit).toBe(1);
    expect(withIdentity.stderr).toMatch(/goes to the agents' socket/);
  }, 120_000);

  it("serves a project's agents from a monitor started outside it, with the project's config, loaded again once edited; a person's call from outside every project, and one the server refers back, keep their standard input", async () => {
    box = await Sandbox.create();
    // Started in the sandbox's folder, not the repository: its own config search starts elsewhere.
    monitor = execa(process.execPath, [CLI, 'monitor', '--interval', '1000'], { cwd: box.dir, env: box.env, extendEnv: false, reject: false, all: true });
    await waitForGateway(box);
    const id = await box.createTask(['gateway/outside', 'Served from a monitor started outside the project'], 'agent.pace: 300');
    await box.waitForStatus(id, 'working', 60_000);
    // The config edited mid-run: the next calls load it again (and must not wait on each other).
    const config = join(box.dir, 'orange.config.mjs');
    const later = new Date(Date.now() + 5_000);
    await utimes(config, later, later);
    await box.waitForStatus(id, 'reviewing', 60_000);
    const served = (await logLines(box)).filter((l) => l.msg === 'agent call served' && l.task === id && l.exit === 0);
    expect(served.length, JSON.stringify(await logLines(box))).toBeGreaterThanOrEqual(2);

    // From outside every registered project: referred back, the CLI runs it, with its standard input.
    const outside = await box.orange(['task', 'create', 'gateway/from-outside', 'Created from outside', '--project', 'demo', '--context', '-', '--json'], { cwd: box.dir, input: 'context read by the client first\n' });
    expect(outside, JSON.stringify(outside)).toMatchObject({ code: 0 });
    const created = JSON.parse(outside.stdout).task.id as string;
    expect((await box.task(created)).body).toMatch(/## Context\n+context read by the client first/);
    // Another committer than the monitor's: referred back too, and the context still arrives.
    const other = await box.orange(['task', 'create', 'gateway/other-env', 'Created with another committer', '-c', '-', '--json'], { input: 'context after a referral\n', env: { GIT_COMMITTER_NAME: 'Someone Else' } });
    expect(other, JSON.stringify(other)).toMatchObject({ code: 0 });
    expect((await box.task(JSON.parse(other.stdout).task.id as string)).body).toMatch(/## Context\n+context after a referral/);
    expect((await logLines(box)).filter((l) => l.msg === "person's call served" && l.command === 'task create').length).toBe(1);

    // An identity whose names are a path in disguise is no identity.
    const disguised = await rawCall(box.paths.gatewaySocket, { v: 1, cwd: box.repo, stdin: '', pid: process.pid, argv: ['task', 'show'], env: { ORANGE_PROJECT: '../workspaces', ORANGE_TASK_ID: 'demo--1', ORANGE_SPAWN_ID: 'x', ORANGE_AGENT_SECRET: 'y' } });
    expect(disguised.exit).toBe(1);
    expect(disguised.stderr).toMatch(/is not one Orange gave/);
  }, 120_000);

  it('leaves agents to the CLI when no monitor runs or its socket is stale, and a new monitor takes the stale socket over', async () => {
    box = await Sandbox.create();
    // A gateway that died without removing its socket: the file is there, nobody listens.
    const socket = box.paths.gatewaySocket;
    const dead = spawn(process.execPath, ['-e', `require('node:fs').mkdirSync(require('node:path').dirname(${JSON.stringify(socket)}), { recursive: true }); require('node:net').createServer().listen(${JSON.stringify(socket)}, () => process.kill(process.pid, 'SIGKILL'))`]);
    await new Promise((resolve) => dead.on('exit', resolve));
    expect(existsSync(socket)).toBe(true);

    const id = await box.createTask(['gateway/stale', 'Agents call the CLI past a stale socket']);
    await box.waitForStatus(id, 'reviewing', 60_000);
    expect((await logLines(box)).some((l) => l.msg === 'agent call served')).toBe(false);

    monitor = startMonitor(box);
    await waitForGateway(box);
    const identity = await box.task(id);
    expect(identity.meta.status).toBe('reviewing');
    monitor.kill('SIGTERM');
    const ended = await monitor;
    monitor = undefined;
    expect(ended.exitCode, String(ended.all)).toBe(0);
    // A monitor that stops removes its socket: agents go back to the CLI.
    expect(existsSync(socket)).toBe(false);
  }, 120_000);
});
