import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { demoSandboxes, endDemo, runDemo } from './demo-run.js';
import { processesEnd, processesOf, tmuxSocketFile, TmuxServer } from '@orange/test-support';
import { CLI } from './sandbox.js';
import { rawRequest } from './web-server.js';

/**
 * The processes of a run still alive once they have had up to `ms` to end: a detached exit
 * report started as the demo's tmux server went down may still be finishing its last write.
 */
async function processesLeft(temp: string, ids: readonly string[]): Promise<string[]> {
  return (await processesEnd(temp, ids, { timeoutMs: 10_000, clearScans: 1 })).map((p) => `${p.pid} ${p.args}`);
}

async function tmuxServerRuns(socket: string): Promise<boolean> {
  return (await new TmuxServer(socket).run('list-sessions')).code === 0;
}

// The demo's sandbox goes into a temp folder of the test's own, so that anything it leaves
// there (sandbox, agent spec files) is seen, whichever process wrote it.
let temp: string | undefined;
let socket: string | undefined;
afterEach(async () => {
  // A run that failed (or was killed) may have left its tmux server, agents and sandbox.
  if (temp && socket) await endDemo(temp, socket);
  if (temp) await rm(temp, { recursive: true, force: true });
  temp = undefined;
  socket = undefined;
});

async function tempFolder(): Promise<string> {
  temp = await realpath(await mkdtemp(join(tmpdir(), 'orange-demo-test-')));
  return temp;
}

// The README's first command ends in `orange demo`: this is the proof that it works on a fresh
// machine — every task done, nothing left behind.
describe('orange demo', () => {
  it('runs three tasks through planning, review (one failing once) and merge to done, then leaves nothing behind', async () => {
    const dir = await tempFolder();
    const run = await runDemo(dir, ['demo', '--json', '--timeout', '150'], { timeoutMs: 170_000 });
    socket = run.socket;
    const { result, report } = run;
    expect(run.exitCode, report).toBe(0);
    expect(run.stderr, report).toBe('');
    expect(result?.ok, report).toBe(true);
    expect(result?.error, report).toBeUndefined();
    expect(result?.rows, report).toHaveLength(3);
    for (const row of result?.rows ?? []) expect(row, report).toMatchObject({ status: 'done' });
    // One task's first review fails: it needs a second round.
    expect(result?.rows.map((r) => r.reviews).sort(), report).toEqual(['1', '1', '2']);

    // Nothing outlives the run: no process of its tasks (an exit report would recreate the
    // sandbox after its removal), no tmux server, and an empty temp folder.
    const ids = (result?.rows ?? []).map((r) => r.id ?? '').filter(Boolean);
    expect(await processesLeft(dir, ids), report).toEqual([]);
    expect(await tmuxServerRuns(run.socket), `tmux server ${run.socket} still runs`).toBe(false);
    // …nor its socket file (kill-server leaves it: the demo removes it).
    expect(existsSync(tmuxSocketFile(run.socket)), tmuxSocketFile(run.socket)).toBe(false);
    expect(await readdir(dir), report).toEqual([]);
  }, 180_000);

  it('with --workflow pipeline runs a clean, an escalated and a budget-stopped-then-resumed task to completed, printing phase, tier and cost; a person merges each into main', async () => {
    const dir = await tempFolder();
    // As people run it: the live log and the summary table are what is checked.
    const run = await runDemo(dir, ['demo', '--workflow', 'pipeline', '--timeout', '150'], { timeoutMs: 170_000 });
    socket = run.socket;
    const { report, stdout: out } = run;
    expect(run.exitCode, report).toBe(0);
    expect(run.stderr, report).toBe('');
    // The live log: each run's phase, tier and cost, the escalation, the budget stop and the resume.
    for (const line of [
      /task A {4}classify on haiku: ok \(\$0\.02\)$/m,
      /task A {4}reproduce on haiku: ok \(\$0\.02\)$/m,
      /task A {4}fix on haiku: ok \(\$0\.02\)$/m,
      /task A {4}check git diff --quiet HEAD: passed$/m,
      /task B {4}fix on haiku: FAILED \(\$0\.02\)$/m,
      /task B {2}retrying → escalating$/m,
      /task B {4}fix on sonnet: ok \(\$0\.02\)$/m,
      /task C {4}plan on haiku: ok \(\$0\.05\)$/m,
      /task C {2}executing → stopped \(budget exceeded: cost \$0\.10 of a \$0\.10 budget\)$/m,
      /task C {2}the human raises its budget to \$1 and resumes it$/m,
      /task C {2}stopped → executing \(resume\)$/m,
      /task C {4}test on haiku: ok \(\$0\.05\)$/m,
      /task A {2}the human reviews the branch and merges it$/m,
      /task C {2}completed → done \(merged\)$/m,
    ]) {
      expect(out, report).toMatch(line);
    }
    // It says first what it does and how long it takes, and prints its lines in the order their events happened.
    expect(out.split('\n')[0], report).toMatch(/^Orange demo \(pipeline\): three scripted tasks .* It takes about 15–30 s\.$/);
    const stamps = [...out.matchAll(/^\+ *(\d+\.\d)s {2}task /gm)].map((m) => Number(m[1]));
    expect(stamps.length, report).toBeGreaterThan(30);
    expect(stamps, report).toEqual([...stamps].sort((a, b) => a - b));
    // The summary: phases, tier and cost/budget of each task.
    expect(out, report).toMatch(/^TASK +ID +STATUS +PHASES +TIER +COST +TRANSITIONS +SECONDS +SUMMARY$/m);
    expect(out, report).toMatch(/^A +\w{21} +done +reproduce,fix +haiku +\$0\.06\/\$0\.10 +6 /m);
    expect(out, report).toMatch(/^B +\w{21} +done +reproduce,fix +sonnet +\$0\.10\/\$0\.10 +11 /m);
    expect(out, report).toMatch(/^C +\w{21} +done +plan,implement,test +haiku +\$0\.20\/\$1\.00 +8 /m);
    expect(out, report).toMatch(/^origin\/main now has \d+ commits\. Every task is done\.$/m);

    // Nothing outlives the run: no process of its tasks, no tmux server, an empty temp folder.
    const ids = [...out.matchAll(/task [ABC] created \((\w{21})\)/g)].map((m) => m[1] ?? '');
    expect(ids, report).toHaveLength(3);
    expect(await processesLeft(dir, ids), report).toEqual([]);
    expect(await tmuxServerRuns(run.socket), `tmux server ${run.socket} still runs`).toBe(false);
    expect(await readdir(dir), report).toEqual([]);
  }, 180_000);

  it('a demo killed before it printed still explains itself from its sandbox’s logs, and nothing of it survives the cleanup', async () => {
    const dir = await tempFolder();
    // SIGKILLed once its first agent runs (as a machine or a test runner kills): no handler, no
    // JSON, no cleanup of its own.
    const run = await runDemo(dir, ['demo', '--json', '--timeout', '150'], { timeoutMs: 170_000, stopWhen: () => agentStarted(dir) });
    socket = run.socket;
    expect(run.signal, run.report).toBe('SIGKILL');
    expect(run.result, run.report).toBeUndefined();
    // The report names how the run ended and quotes the orange.log the demo never printed.
    expect(run.report).toMatch(/^orange demo --json --timeout 150 was ended by SIGKILL \(sent SIGKILL, ended \d+ ms later\)\n/);
    expect(run.report).toMatch(/orange\.log \(end, read from .*orange-demo-[^/]+\/home\/orange\.log\):\n/);
    expect(run.report).toContain('"msg":"agent spawned"');
    // What the killed demo left is there to clean, and the cleanup ends all of it.
    expect(await tmuxServerRuns(run.socket), run.report).toBe(true);
    expect(await demoSandboxes(dir), run.report).toHaveLength(1);
    await endDemo(dir, run.socket);
    expect(await tmuxServerRuns(run.socket)).toBe(false);
    expect(await processesOf(dir, [])).toEqual([]);
    expect(await readdir(dir)).toEqual([]);
  }, 180_000);

  it('with --web serves the run to a browser: the URL printed and opened, every task on the board, the page up until Ctrl-C, which then ends it as a success', async () => {
    const dir = await tempFolder();
    // The "browser": records the URL it was asked to open.
    const opener = join(dir, 'browser.sh');
    await writeFile(opener, `#!/bin/sh\nprintf '%s\\n' "$1" > ${JSON.stringify(join(dir, 'opened'))}\n`);
    await chmod(opener, 0o755);
    const { TMUX: _t, TMUX_PANE: _p, ORANGE_HOME: _h, ...env } = process.env;
    const demo = execa(process.execPath, [CLI, 'demo', '--web', '--timeout', '150'], { env: { ...env, TMPDIR: dir, BROWSER: opener }, extendEnv: false, reject: false, timeout: 170_000 });
    socket = `orange-demo-${String(demo.pid)}`;
    let out = '';
    demo.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const until = async (what: string, test: () => boolean | Promise<boolean>, ms: number) => {
      const deadline = Date.now() + ms;
      while (!(await test())) {
        if (Date.now() > deadline || demo.exitCode !== null) throw new Error(`demo --web: no ${what}; stdout:\n${out}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    await until('URL', () => /Open the fleet in a browser: (\S+)/.test(out), 30_000);
    const url = new URL(/Open the fleet in a browser: (\S+)/.exec(out)![1]!);
    await until('opened URL', async () => (await readFile(join(dir, 'opened'), 'utf8').catch(() => '')).trim() === url.href, 15_000);
    await until('end of the run', () => out.includes('press Ctrl-C to end the demo'), 150_000);
    // The page still serves the finished fleet: every task done on the board.
    const host = { Host: url.host };
    const login = await rawRequest(Number(url.port), { path: `/?token=${url.searchParams.get('token')}`, headers: host });
    const cookie = String(login.headers['set-cookie']).split(';')[0]!;
    const board = await firstBoard(Number(url.port), { ...host, Cookie: cookie });
    expect(board.rows.map((r) => r.status), out).toEqual(['done', 'done', 'done']);
    demo.kill('SIGINT');
    const run = await demo;
    expect(run.exitCode, `${out}\n${String(run.stderr)}`).toBe(0);
    expect(out).not.toContain('interrupted');
    expect(await tmuxServerRuns(socket), `tmux server ${socket} still runs`).toBe(false);
    expect((await readdir(dir)).sort()).toEqual(['browser.sh', 'opened']);
  }, 180_000);

  it('Ctrl-C (SIGINT) once the first agent runs ends the demo with exit 130 and one line, its tmux server, agents and sandbox gone', async () => {
    const dir = await tempFolder();
    const run = await runDemo(dir, ['demo', '--timeout', '150'], { timeoutMs: 170_000, stopWhen: () => agentStarted(dir), stopSignal: 'SIGINT' });
    socket = run.socket;
    const { report } = run;
    expect(run.exitCode, report).toBe(130);
    expect(run.stderr, report).toBe('');
    expect(run.stdout, report).toMatch(/^The demo was interrupted \(SIGINT\): its tmux server, agents and sandbox are gone\.$/m);
    // The teardown is bounded: cancels, the tmux server, up to 15 s for exit reports, the folder.
    expect(run.stopToExitMs, report).toBeLessThan(45_000);
    // Nothing outlives it, checked at once: the demo said so only after it was true.
    const ids = [...run.stdout.matchAll(/task [ABC] created \((\w{21})\)/g)].map((m) => m[1] ?? '');
    expect(ids.length, report).toBeGreaterThan(0);
    expect(await tmuxServerRuns(run.socket), `tmux server ${run.socket} still runs`).toBe(false);
    expect(await processesOf(dir, ids), report).toEqual([]);
    expect(await readdir(dir), report).toEqual([]);
  }, 180_000);
});

/** True once the demo's first agent runs: orange.log in its sandbox says one spawned. */
async function agentStarted(dir: string): Promise<boolean> {
  for (const sandbox of await demoSandboxes(dir)) {
    if ((await readFile(join(sandbox, 'home', 'orange.log'), 'utf8').catch(() => '')).includes('"msg":"agent spawned"')) return true;
  }
  return false;
}

/** The first board the page's event stream sends. */
async function firstBoard(port: number, headers: Record<string, string>): Promise<{ rows: Array<{ status: string }> }> {
  const { request } = await import('node:http');
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/api/events', headers, agent: false }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        const match = /event: board\ndata: (.*)\n\n/.exec(text);
        if (!match) return;
        res.destroy();
        resolve(JSON.parse(match[1]!) as { rows: Array<{ status: string }> });
      });
    });
    req.on('error', reject);
    req.end();
  });
}
