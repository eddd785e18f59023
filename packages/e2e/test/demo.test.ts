import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI } from './sandbox.js';

interface DemoJson {
  readonly ok: boolean;
  readonly sandbox: string;
  readonly rows: ReadonlyArray<Record<string, string>>;
  readonly error?: string;
  readonly log?: string;
}

/** Command lines of running processes that name one of `ids` (the demo's tasks). */
async function processesNaming(ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const ps = await execa('ps', ['-A', '-o', 'args='], { reject: false });
  if (ps.exitCode !== 0) throw new Error(`ps failed: ${ps.stderr || ps.message}`);
  return String(ps.stdout)
    .split('\n')
    .filter((line) => ids.some((id) => line.includes(id)));
}

/**
 * The processes still naming the tasks once they have had up to `ms` to end: a detached exit
 * report started as the demo's tmux server went down may still be finishing its last write.
 */
async function processesLeft(ids: readonly string[], ms = 10_000): Promise<string[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const left = await processesNaming(ids);
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

let temp: string | undefined;
afterEach(async () => {
  if (temp) await rm(temp, { recursive: true, force: true });
  temp = undefined;
});

// The README's first command ends in `orange demo`: this is the proof that it works on a fresh
// machine — every task done, nothing left behind.
describe('orange demo', () => {
  it('runs three tasks through planning, review (one failing once) and merge to done, then leaves nothing behind', async () => {
    // The demo's sandbox goes into a temp folder of this test's own, so that anything it leaves
    // there (sandbox, agent spec files) is seen, whichever process wrote it.
    temp = await mkdtemp(join(tmpdir(), 'orange-demo-test-'));
    const { TMUX: _t, TMUX_PANE: _p, ORANGE_TASK_ID: _i, ORANGE_PROJECT: _j, ORANGE_HOME: _h, ...env } = process.env;
    const demo = execa(process.execPath, [CLI, 'demo', '--json', '--timeout', '150'], {
      env: { ...env, TMPDIR: temp },
      extendEnv: false,
      reject: false,
      timeout: 170_000,
    });
    // The demo names its tmux server after its own pid.
    const socket = `orange-demo-${String(demo.pid)}`;
    const run = await demo;
    let result: DemoJson | undefined;
    try {
      result = JSON.parse(run.stdout) as DemoJson;
    } catch {
      // Not JSON: the explanation below prints what it was.
    }
    // A failure explains itself: exit code, stderr, and stdout, whose JSON carries the demo's
    // error and the end of the sandbox's orange.log (printed as text, not as an escaped string).
    const explain = [
      `orange demo exited ${String(run.exitCode)}${run.timedOut ? ' (timed out)' : ''}${run.signal ? ` (${run.signal})` : ''}`,
      `stderr:\n${run.stderr || '(empty)'}`,
      `stdout:\n${run.stdout || '(empty)'}`,
      ...(result?.log ? [`orange.log (end):\n${result.log}`] : []),
    ].join('\n\n');
    expect(run.exitCode, explain).toBe(0);
    expect(run.stderr, explain).toBe('');
    expect(result?.ok, explain).toBe(true);
    expect(result?.error, explain).toBeUndefined();
    expect(result?.rows, explain).toHaveLength(3);
    for (const row of result?.rows ?? []) expect(row, explain).toMatchObject({ status: 'done' });
    // One task's first review fails: it needs a second round.
    expect(result?.rows.map((r) => r.reviews).sort(), explain).toEqual(['1', '1', '2']);

    // Nothing outlives the run: no process of its tasks (an exit report would recreate the
    // sandbox after its removal), no tmux server, and an empty temp folder.
    const ids = (result?.rows ?? []).map((r) => r.id ?? '').filter(Boolean);
    expect(await processesLeft(ids), explain).toEqual([]);
    const server = await execa('tmux', ['-L', socket, 'list-sessions'], { reject: false });
    expect(server.exitCode, `tmux server ${socket} still runs:\n${server.stdout}`).not.toBe(0);
    expect(await readdir(temp), explain).toEqual([]);
  }, 180_000);

  it('with --workflow pipeline runs a clean, an escalated and a budget-stopped-then-resumed task to completed, printing phase, tier and cost', async () => {
    temp = await mkdtemp(join(tmpdir(), 'orange-demo-test-'));
    const { TMUX: _t, TMUX_PANE: _p, ORANGE_TASK_ID: _i, ORANGE_PROJECT: _j, ORANGE_HOME: _h, ...env } = process.env;
    // As people run it: the live log and the summary table are what is checked.
    const demo = execa(process.execPath, [CLI, 'demo', '--workflow', 'pipeline', '--timeout', '150'], {
      env: { ...env, TMPDIR: temp },
      extendEnv: false,
      reject: false,
      timeout: 170_000,
    });
    const socket = `orange-demo-${String(demo.pid)}`;
    const run = await demo;
    const out = String(run.stdout);
    const explain = `orange demo exited ${String(run.exitCode)}${run.timedOut ? ' (timed out)' : ''}\nstderr:\n${run.stderr || '(empty)'}\nstdout:\n${out || '(empty)'}`;
    expect(run.exitCode, explain).toBe(0);
    expect(run.stderr, explain).toBe('');
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
    ]) {
      expect(out, explain).toMatch(line);
    }
    // The summary: phases, tier and cost/budget of each task.
    expect(out, explain).toMatch(/^TASK +ID +STATUS +PHASES +TIER +COST +TRANSITIONS +SECONDS +SUMMARY$/m);
    expect(out, explain).toMatch(/^A +\w{21} +completed +reproduce,fix +haiku +\$0\.06\/\$0\.10 +5 /m);
    expect(out, explain).toMatch(/^B +\w{21} +completed +reproduce,fix +sonnet +\$0\.10\/\$0\.10 +10 /m);
    expect(out, explain).toMatch(/^C +\w{21} +completed +plan,implement,test +haiku +\$0\.20\/\$1\.00 +7 /m);
    expect(out, explain).toContain('Every task is done.');

    // Nothing outlives the run: no process of its tasks, no tmux server, an empty temp folder.
    const ids = [...out.matchAll(/task [ABC] created \((\w{21})\)/g)].map((m) => m[1] ?? '');
    expect(ids, explain).toHaveLength(3);
    expect(await processesLeft(ids), explain).toEqual([]);
    const server = await execa('tmux', ['-L', socket, 'list-sessions'], { reject: false });
    expect(server.exitCode, `tmux server ${socket} still runs:\n${server.stdout}`).not.toBe(0);
    expect(await readdir(temp), explain).toEqual([]);
  }, 180_000);
});
