import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { waitFor } from '@orange/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, Sandbox } from './sandbox.js';
import { dash, Terminal } from './terminal.js';

let box: Sandbox | undefined;
let term: Terminal | undefined;
let temp: string | undefined;
afterEach(async () => {
  await term?.close();
  term = undefined;
  await box?.cleanup();
  box = undefined;
  if (temp) await rm(temp, { recursive: true, force: true });
  temp = undefined;
});

/** A git repository with one commit at `dir` (its name is the project name `dash` would give it). */
async function repository(sandbox: Sandbox, dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  await sandbox.git(dir, 'init', '-q', '-b', 'main');
  await writeFile(join(dir, 'README.md'), '# another\n');
  await sandbox.git(dir, 'add', 'README.md');
  await sandbox.git(dir, 'commit', '-q', '-m', 'initial commit');
  return dir;
}

/** A task whose scripted worker stays alive for a minute; resolves once its worker runs. */
async function liveTask(sandbox: Sandbox, branch: string): Promise<string> {
  const id = await sandbox.createTask([branch, `watch ${branch}`], 'agent.pace: 60000\n');
  await sandbox.waitFor('the worker to start', async () => (await sandbox.task(id)).meta.worker_spawn !== null, 20_000);
  return id;
}

/** The pid of a dashboard (other than `not`), from the monitor lease it enters on its first turn. */
async function dashboardPid(sandbox: Sandbox, not?: number): Promise<number> {
  let pid: number | undefined;
  await sandbox.waitFor('the dashboard to enter the monitor lease', async () => {
    const { holders } = JSON.parse(await readFile(sandbox.paths.monitorLeaseFile, 'utf8')) as { holders: Array<{ pid: number; kind: string }> };
    pid = holders.find((h) => h.kind === 'dashboard' && h.pid !== not)?.pid;
    return pid !== undefined;
  });
  return pid as number;
}

/**
 * `command` typed under a shell that ignores the hang-up, so that it outlives a closed terminal
 * and writes down how `command` ended (its exit status) in `exitFile`.
 */
function survivingHangUp(command: string, exitFile: string): string {
  return `sh -c 'trap "" HUP; ${command}; echo $? > ${exitFile}'`;
}

/** Dashboard `pid` wound down before it exited: the gateway's sockets are removed and it left the monitor lease. */
async function wentAway(sandbox: Sandbox, pid: number): Promise<void> {
  expect(existsSync(sandbox.paths.gatewaySocket), 'agents.sock still there').toBe(false);
  expect(existsSync(sandbox.paths.peopleSocket), 'people.sock still there').toBe(false);
  const lease = await readFile(sandbox.paths.monitorLeaseFile, 'utf8');
  expect((JSON.parse(lease) as { holders: Array<{ pid: number }> }).holders.map((h) => h.pid), lease).not.toContain(pid);
}

/** How many monitor passes process `pid` has logged as a dashboard. */
async function passesOf(sandbox: Sandbox, pid: number): Promise<number> {
  const log = await readFile(sandbox.paths.logFile, 'utf8').catch(() => '');
  return log.split('\n').filter((line) => line.includes('"msg":"monitor pass"') && line.includes(`"pid":${pid},`)).length;
}

describe('opening the dashboard', () => {
  it("answers agents' calls while it is open (the gateway), and takes its sockets away when it closes", async () => {
    box = await Sandbox.create();
    term = new Terminal(box);
    await term.open();
    await term.type(`CI=true node ${CLI}`);
    await term.screenShows('Orange · demo · showing all');
    await box.waitFor('the dashboard to serve the gateway', async () => (await readFile(box!.paths.logFile, 'utf8').catch(() => '')).includes('"msg":"gateway listening"'));
    const id = await box.createTask(['chore/served-by-dash', 'a task the dashboard answers']);
    await box.waitForStatus(id, 'reviewing', 60_000);
    const served = (await readFile(box.paths.logFile, 'utf8')).split('\n').filter((line) => line.includes('"msg":"agent call served"') && line.includes(id));
    expect(served.length).toBeGreaterThanOrEqual(2);
    await term.press('q');
    await term.shellIsBack();
    await box.waitFor('the sockets to go', async () => !existsSync(box!.paths.gatewaySocket) && !existsSync(box!.paths.peopleSocket), 10_000);
  });

  it('plain orange in a terminal opens it on the project you stand in; --project NAME shows that project only', async () => {
    box = await Sandbox.create();
    const web = await repository(box, join(box.dir, 'web'));
    expect((await box.orange(['project', 'add', web, '--name', 'web'])).code).toBe(0);
    await box.createTask(['chore/in-demo', 'a task of demo', '--no-spawn']);
    expect((await box.orange(['task', 'create', 'chore/in-web', 'a task of web', '--no-spawn', '--project', 'web'])).code).toBe(0);
    term = new Terminal(box);
    await term.open();

    await term.type(`CI=true node ${CLI}`);
    await term.screenShows('Orange · demo · showing all');
    await term.screenShows('chore/in-demo');
    expect(await term.screen()).not.toContain('chore/in-web');
    await term.press('q');
    await term.screenShows('BEFORE-DASH');
    await term.shellIsBack();

    await term.type(dash('--project web'));
    await term.screenShows('Orange · web · showing all');
    await term.screenShows('chore/in-web');
    expect(await term.screen()).not.toContain('chore/in-demo');
    await term.press('q');
    await term.screenShows('BEFORE-DASH');
    await term.shellIsBack();

    // The dashboard's flags without the word dash, as the original took them.
    await term.type(`CI=true node ${CLI} --all`);
    await term.screenShows('Orange · all projects · showing all');
    await term.screenShows('chore/in-web');
    await term.screenShows('chore/in-demo');
    await term.press('q');
    await term.screenShows('BEFORE-DASH');
  });

  it('registers a repository on first open, under a free name when its directory name is taken, and shows every project only outside any repository', async () => {
    box = await Sandbox.create();
    // Its directory is called demo, like the sandbox's project: it becomes demo-2, never "all projects".
    const other = await repository(box, join(box.dir, 'elsewhere', 'demo'));
    term = new Terminal(box);
    await term.open(other);
    await term.type(dash());
    await term.screenShows('Orange · demo-2 · showing all');
    await term.screenShows('no tasks yet');
    await term.press('q');
    await term.screenShows('BEFORE-DASH');
    await term.shellIsBack();
    const { projects } = JSON.parse((await box.orange(['project', 'list', '--json'])).stdout) as { projects: Array<{ name: string; path: string }> };
    expect(projects.map((p) => p.name).sort()).toEqual(['demo', 'demo-2']);
    expect(projects.find((p) => p.name === 'demo-2')?.path).toContain(join('elsewhere', 'demo'));

    // Outside any git repository (the sandbox's own folder): every project, as documented.
    await term.type(`cd ${box.dir} && ${dash()}`);
    await term.screenShows('Orange · all projects · showing all');
    await term.press('q');
    await term.screenShows('BEFORE-DASH');
  });

  it('SIGINT, SIGTERM and SIGHUP sent to it quit it as q does: the terminal as it was, exit 0, its sockets and lease entry gone', async () => {
    box = await Sandbox.create();
    term = new Terminal(box);
    await term.open();
    let previous: number | undefined;
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
      await term.type(`${dash()}; echo DASH-EXIT-${signal}=$?`);
      await term.screenShows('Orange · demo · showing all');
      const pid = await dashboardPid(box, previous);
      previous = pid;
      process.kill(pid, signal);
      const screen = await term.screenShows(new RegExp(`DASH-EXIT-${signal}=\\d+`));
      expect(screen, screen).toContain(`DASH-EXIT-${signal}=0`);
      expect(await alternateScreen(term), screen).toBe(false);
      // Raw mode off: a terminal left with -icanon or -echo would not show what is typed.
      await term.type(`echo TTY-${signal}-$(stty -a | grep -cw -e -icanon -e -echo)`);
      await term.screenShows(new RegExp(`^TTY-${signal}-0$`, 'm'));
      await wentAway(box, pid);
    }
  });

  it('closing its terminal (SIGHUP) quits it all the same: exit 0, not a crash, its sockets and lease entry gone', async () => {
    box = await Sandbox.create();
    term = new Terminal(box);
    await term.open();
    const exitFile = join(box.dir, 'dash-exit');
    await term.type(survivingHangUp(dash(), exitFile));
    await term.screenShows('Orange · demo · showing all');
    const pid = await dashboardPid(box);
    await box.waitFor('the dashboard to serve the gateway', async () => existsSync(box!.paths.gatewaySocket));
    // Its pty closes: the shell (the session leader) is hung up, then the dashboard in the foreground.
    await term.close();
    await box.waitFor('the dashboard to exit after its terminal closed', async () => existsSync(exitFile), 30_000);
    // 134 or 139 here is Node aborting on a terminal it can no longer restore; 1, a write that failed.
    expect((await readFile(exitFile, 'utf8')).trim(), await term.logTail()).toBe('0');
    await wentAway(box, pid);
  });
});

describe('attaching from the dashboard', () => {
  it('--exit-on-attach quits once you detach (an agent on another tmux server, attached inside the pane)', async () => {
    box = await Sandbox.create();
    const id = await liveTask(box, 'feature/watch-once');
    term = new Terminal(box);
    await term.open();
    await term.type(dash('--exit-on-attach'));
    await term.screenShows(/●.*feature\/watch-once/);
    await term.screenShows('⏎ attach (C-b C-b d back)');
    await term.press('Enter');
    await box.waitFor('a client on the agent session', async () => (await box!.tmux('list-clients', '-F', '#{session_name}')).stdout.includes(id));
    // send-keys types into the pane itself, past the outer tmux: one prefix reaches the nested client.
    await term.press('C-b', 'd');
    await term.screenShows('BEFORE-DASH');
    await term.shellIsBack();
    expect(await term.screen()).not.toContain('j/k move');
  });

  it("inside a client of the agents' own tmux server, Enter switches it to the agent and the dashboard waits until prefix L brings it back", async () => {
    box = await Sandbox.create();
    const id = await liveTask(box, 'feature/switch-me');
    term = new Terminal(box);
    await term.open();
    // The person's tmux is Orange's server here (no socket of its own): a session "home", and a
    // real client of it in the terminal pane.
    expect((await box.tmux('new-session', '-d', '-s', 'home', '-x', '120', '-y', '38', '-c', box.repo, 'sh')).code).toBe(0);
    await term.type(`TMUX= tmux -L ${box.socket} attach -t home`);
    await box.waitFor('the client to attach', async () => (await box!.tmux('list-clients', '-F', '#{session_name}')).stdout.trim() === 'home');
    const clientOn = async () => (await box!.tmux('list-clients', '-F', '#{session_name}')).stdout.trim();
    const home = async (format: string) => (await box!.tmux('display-message', '-p', '-t', 'home', format)).stdout.trim();
    const env = `ORANGE_HOME=${box.paths.home} ORANGE_TMUX_SOCKET=${box.socket}`;
    await term.type('echo HOME-SHELL');
    await term.screenShows('HOME-SHELL');

    await term.type(`${env} ${dash()}`);
    await term.screenShows(/●.*feature\/switch-me/);
    await term.screenShows('⏎ attach (C-b L back)');
    const pid = await dashboardPid(box);
    await term.press('Enter');
    await box.waitFor('the client to switch to the agent', async () => (await clientOn()) === `demo/${id}`);
    await term.screenShows('orange: C-b L (switch-client -l) comes back');
    // While the client is away the dashboard keeps its poll going, and is not drawn in its hidden pane.
    const passes = await passesOf(box, pid);
    await box.waitFor('two more passes of the dashboard', async () => (await passesOf(box!, pid)) >= passes + 2, 20_000);
    expect(await clientOn()).toBe(`demo/${id}`);
    expect(await home('#{pane_current_command}')).toBe('node');
    expect((await box.tmux('capture-pane', '-p', '-t', 'home')).stdout).not.toContain('j/k move');

    await term.press('C-b', 'L');
    await term.screenShows(`back from ${id}`);
    await term.screenShows(/●.*feature\/switch-me/);
    await term.press('q');
    await box.waitFor('the dashboard to exit', async () => (await home('#{pane_current_command}')) === 'sh');

    // --exit-on-attach: it quits when the client is back, not the moment it switched away.
    await term.type(`${env} ${dash('--exit-on-attach')}`);
    await term.screenShows(/●.*feature\/switch-me/);
    const second = await dashboardPid(box, pid);
    await term.press('Enter');
    await box.waitFor('the client to switch to the agent', async () => (await clientOn()) === `demo/${id}`);
    const before = await passesOf(box, second);
    await box.waitFor('two more passes of the dashboard', async () => (await passesOf(box!, second)) >= before + 2, 20_000);
    expect(await home('#{pane_current_command}')).toBe('node');
    await term.press('C-b', 'L');
    await box.waitFor('the dashboard to exit', async () => (await home('#{pane_current_command}')) === 'sh');
    await term.screenShows('HOME-SHELL');
    expect(await clientOn()).toBe('home');
  });
});

describe('npm run demo -- --dash', () => {
  it('runs the demo with the dashboard open: rows move, q closes it, the demo ends with exit 0 and leaves nothing behind', async () => {
    const demo = await demoTerminal();
    // What `npm run demo -- --dash` runs once the build is done.
    await demo.term.type(`CI=true node ${CLI} demo --dash; echo DEMO-EXIT=$?`);
    await demo.term.screenShows('Orange · sandbox · showing all', 60_000);
    // Rows move: a task past planning, on screen while the demo runs.
    await demo.term.screenShows(/[●✗○◌]\s+\d*\s+\S+.*\s(working|agent-review|reviewing|done)\s/, 90_000);
    await demo.term.press('q');
    await demo.term.screenShows(/DEMO-EXIT=\d+/, 150_000);
    const output = await demo.term.tmux('capture-pane', '-p', '-J', '-S', '-2000', '-t', 'term');
    expect(output, output).toContain('DEMO-EXIT=0');
    expect(output).toContain('Every task is done.');
    await nothingLeft(demo, output);
  }, 200_000);

  it('Ctrl-C closes the dashboard and the held progress lines follow; a second Ctrl-C interrupts the demo: exit 130, the terminal as it was, nothing left', async () => {
    const demo = await demoTerminal();
    await demo.term.type(`CI=true node ${CLI} demo --dash; echo DEMO-EXIT=$?`);
    await demo.term.screenShows(/[●✗○◌]\s+\d*\s+\S+.*\s(planning|working|agent-review|reviewing)\s/, 90_000);
    // Typed in the dashboard, Ctrl-C is a key (raw mode): it quits the dashboard, not the demo.
    await demo.term.press('C-c');
    await demo.term.screenShows(/task A {2}pending → planning/, 30_000);
    expect(await alternateScreen(demo.term)).toBe(false);
    // Now it reaches the demo as SIGINT.
    await demo.term.press('C-c');
    await interruptedAndGone(demo, 'SIGINT', 130);
  }, 200_000);

  it('SIGTERM to the demo while its dashboard is open closes the dashboard first: exit 143, the terminal as it was, nothing left', async () => {
    const demo = await demoTerminal();
    await demo.term.type(`CI=true node ${CLI} demo --dash; echo DEMO-EXIT=$?`);
    await demo.term.screenShows(/[●✗○◌]\s+\d*\s+\S+.*\s(planning|working|agent-review|reviewing)\s/, 90_000);
    const pane = (await demo.term.tmux('display-message', '-p', '-t', 'term', '#{pane_pid}')).trim();
    const pid = String((await execa('pgrep', ['-P', pane, '-f', 'demo --dash'], { reject: false })).stdout).trim();
    expect(pid, "the demo under the pane's shell").toMatch(/^\d+$/);
    process.kill(Number(pid), 'SIGTERM');
    await interruptedAndGone(demo, 'SIGTERM', 143);
  }, 200_000);

  it('closing the terminal (SIGHUP) while its dashboard is open ends the demo as its end does: exit 129, its tmux server and sandbox gone', async () => {
    const demo = await demoTerminal();
    const exitFile = join(demo.dir, 'demo-exit');
    await demo.term.type(survivingHangUp(`CI=true node ${CLI} demo --dash`, exitFile));
    await demo.term.screenShows(/[●✗○◌]\s+\d*\s+\S+.*\s(planning|working|agent-review|reviewing)\s/, 90_000);
    // The demo names its tmux server after its pid: the node process under the shell around it.
    const pane = (await demo.term.tmux('display-message', '-p', '-t', 'term', '#{pane_pid}')).trim();
    const shell = String((await execa('pgrep', ['-P', pane], { reject: false })).stdout).trim();
    const pid = String((await execa('pgrep', ['-P', shell, '-f', 'demo --dash'], { reject: false })).stdout).trim();
    expect(pid, 'the demo under the shell that outlives the terminal').toMatch(/^\d+$/);
    await demo.term.close();
    await waitFor('the demo to exit after its terminal closed', () => existsSync(exitFile), { timeoutMs: 60_000, everyMs: 100 });
    const left = async () => (await readdir(demo.dir)).filter((name) => name !== 'demo-exit');
    // 129 alone would not tell: a demo that does not listen for SIGHUP dies of it, leaving everything.
    expect((await readFile(exitFile, 'utf8')).trim(), `left in its temp folder: ${(await left()).join(', ')}`).toBe('129');
    const server = await execa('tmux', ['-L', `orange-demo-${pid}`, 'list-windows', '-a'], { reject: false, env: demo.env, extendEnv: false });
    expect(server.exitCode, `tmux server orange-demo-${pid} still runs:\n${String(server.stdout)}`).not.toBe(0);
    expect(await left()).toEqual([]);
  }, 200_000);
});

interface DemoTerminal {
  readonly term: Terminal;
  /** The temp folder the demo's sandbox goes in (its TMPDIR). */
  readonly dir: string;
  readonly env: Record<string, string>;
}

/** A terminal whose shell has a temp folder of the test's own as TMPDIR (afterEach closes and removes both). */
async function demoTerminal(): Promise<DemoTerminal> {
  const dir = await mkdtemp(join(tmpdir(), 'orange-demo-dash-'));
  temp = dir;
  const { TMUX: _t, TMUX_PANE: _p, ORANGE_TASK_ID: _i, ORANGE_PROJECT: _j, ORANGE_HOME: _h, ORANGE_TMUX_SOCKET: _s, ...inherited } = process.env;
  const env = { ...(inherited as Record<string, string>), TMPDIR: dir };
  const terminal = new Terminal({ env, repo: dir, paths: { logFile: '' } });
  term = terminal;
  await terminal.open();
  return { term: terminal, dir, env };
}

async function alternateScreen(terminal: Terminal): Promise<boolean> {
  return (await terminal.tmux('display-message', '-p', '-t', 'term', '#{alternate_on}')).trim() === '1';
}

/** The demo said it was interrupted by `signal` and exited `code`, gave the terminal back in its normal mode, and left nothing. */
async function interruptedAndGone(demo: DemoTerminal, signal: string, code: number): Promise<void> {
  await demo.term.screenShows(/DEMO-EXIT=\d+/, 60_000);
  const output = await demo.term.tmux('capture-pane', '-p', '-J', '-S', '-2000', '-t', 'term');
  expect(output, output).toContain(`The demo was interrupted (${signal}): its tmux server, agents and sandbox are gone.`);
  expect(output, output).toContain(`DEMO-EXIT=${code}`);
  expect(await alternateScreen(demo.term), output).toBe(false);
  // Raw mode off: a terminal left with -icanon or -echo would not show what is typed.
  await demo.term.type('echo TTY-$(stty -a | grep -cw -e -icanon -e -echo)');
  await demo.term.screenShows(/^TTY-0$/m);
  await nothingLeft(demo, output);
}

/** The demo's tmux server (named in its output) no longer runs and its temp folder is empty. */
async function nothingLeft(demo: DemoTerminal, output: string): Promise<void> {
  const socket = /tmux -L (orange-demo-\d+) attach/.exec(output)?.[1];
  expect(socket, output).toBeDefined();
  // What still runs there, window by window, and the demo's own account of its end.
  const server = await execa('tmux', ['-L', socket as string, 'list-windows', '-a', '-F', '#{session_name}:#{window_name} #{pane_start_command}'], { reject: false, env: demo.env, extendEnv: false });
  expect(server.exitCode, `tmux server ${String(socket)} still runs:\n${String(server.stdout)}\n--- the demo's output:\n${output}`).not.toBe(0);
  expect(await readdir(demo.dir), output).toEqual([]);
}
