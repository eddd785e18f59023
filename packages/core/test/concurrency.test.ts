/**
 * Races between real orange processes (test/race-worker.mjs, which loads the built core): the
 * task lock must serialize transitions across processes, and atomic writes must leave TASK.md
 * whole even when a writer is killed with SIGKILL half-way through.
 */
import { spawn, type ChildProcess, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseTaskFile, type TaskRef } from '../src/index.js';
import { sandbox, taskIn, type Sandbox } from './fixtures.js';

const DIST = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const WORKER = fileURLToPath(new URL('./race-worker.mjs', import.meta.url));
if (!existsSync(DIST)) {
  throw new Error(`${DIST} is missing: the concurrency tests run the built core; build it first (npx turbo run build --filter=@orange/core)`);
}

const PLAN = '## Plan\n\nAPPROACH: split the parser\nTOUCHING: parser.ts\n';
const EVERY_SECTION = `${PLAN}\n## Handoff\n\nDONE: parser split\n\n## Review\n\nVerdict: PASS\nclean\n`;

interface Outcome {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** The last JSON line the worker printed other than `{"ready":true}`. */
  readonly result: Record<string, unknown> | null;
  readonly stdout: string;
  readonly stderr: string;
}

interface Worker {
  readonly proc: ChildProcessWithoutNullStreams;
  /** Resolves once the worker has set up (and for write loops, written once). */
  readonly ready: Promise<void>;
  readonly done: Promise<Outcome>;
}

/** Every process a test started; killed after each test, so a failed or timed-out test leaves none behind. */
const started = new Set<ChildProcess>();

function startWorker(args: string[]): Worker {
  const proc = spawn(process.execPath, [WORKER, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  started.add(proc);
  let stdout = '';
  let stderr = '';
  let markReady: () => void = () => undefined;
  let failReady: (error: Error) => void = () => undefined;
  const ready = new Promise<void>((resolve, reject) => {
    markReady = resolve;
    failReady = reject;
  });
  proc.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    if (stdout.includes('{"ready":true}\n')) markReady();
  });
  proc.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  // A worker killed before its "go" must not crash the test with EPIPE.
  proc.stdin.on('error', () => undefined);
  const done = new Promise<Outcome>((resolve) => {
    proc.on('close', (code, signal) => {
      failReady(new Error(`worker ${args[0]} exited (${code ?? signal}) before it was ready: ${stdout}${stderr}`));
      const lines = stdout.split('\n').filter((l) => l.trim() !== '' && l !== '{"ready":true}');
      const last = lines.at(-1);
      let result: Record<string, unknown> | null = null;
      try {
        result = last === undefined ? null : (JSON.parse(last) as Record<string, unknown>);
      } catch {
        result = null;
      }
      resolve({ code, signal, result, stdout, stderr });
    });
  });
  // `ready` may never be awaited (a worker that fails fast); its rejection is reported through `done`.
  ready.catch(() => undefined);
  return { proc, ready, done };
}

async function historyLines(box: Sandbox, ref: TaskRef): Promise<Record<string, unknown>[]> {
  const text = await readFile(box.orange.paths.historyFile(ref.project, ref.id), 'utf8');
  expect(text.endsWith('\n')).toBe(true);
  // JSON.parse throws on a torn or interleaved line, failing the test with the line in view.
  return text.trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
}

async function readTaskFile(box: Sandbox, ref: TaskRef) {
  const file = box.orange.paths.taskFile(ref.project, ref.id);
  return parseTaskFile(await readFile(file, 'utf8'), file);
}

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  for (const proc of started) if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  started.clear();
  await box?.cleanup();
});

describe('transitions from parallel processes', () => {
  it('20 processes racing planning → working on one task: exactly one wins, 19 are refused with one line', async () => {
    const ref = await taskIn(box, 'planning', { body: PLAN });
    const workers = Array.from({ length: 20 }, () => startWorker(['transition', box.home, ref.project, ref.id, 'working']));
    // Every process has loaded the core before any starts, so they really contend for the lock.
    await Promise.all(workers.map((w) => w.ready));
    for (const w of workers) w.proc.stdin.write('go\n');
    const outcomes = await Promise.all(workers.map((w) => w.done));

    const winners = outcomes.filter((o) => o.code === 0);
    const losers = outcomes.filter((o) => o.code !== 0);
    expect(winners.map((o) => o.result)).toEqual([{ ok: true, from: 'planning', to: 'working', changed: true }]);
    expect(losers).toHaveLength(19);
    for (const loser of losers) {
      expect(loser.code, loser.stdout + loser.stderr).toBe(1);
      expect(loser.result).toEqual({
        ok: false,
        code: 'E_ILLEGAL_TRANSITION',
        message: expect.stringMatching(/^working → working refused: not a transition of workflow default \(from working: [^\n]*\)$/),
      });
      expect(loser.stderr).toBe('');
    }

    const task = await readTaskFile(box, ref);
    expect(task.meta.status).toBe('working');
    expect(task.body).toBe(PLAN);
    const history = await historyLines(box, ref);
    // The losers appended nothing: no second status change, no hook failure.
    expect(history.map((e) => e.type)).toEqual(['task.created', 'status.changed']);
    expect(history[1]).toMatchObject({ from: 'planning', to: 'working', cause: 'request' });
    await expect(box.orange.engine.readVerified(ref)).resolves.toMatchObject({ meta: { status: 'working' } });
  }, 20_000);

  it('200 transitions over 50 tasks from 10 processes: every task ends where requested, no update lost', async () => {
    const CHAIN = [
      ['planning', 'working'],
      ['working', 'agent-review'],
      ['agent-review', 'reviewing'],
      ['reviewing', 'done'],
    ] as const;
    const refs: TaskRef[] = [];
    for (let i = 0; i < 50; i++) refs.push(await taskIn(box, 'planning', { body: EVERY_SECTION }));

    // Step s of task i goes to process (4i + s) mod 10: the four steps of a task are in four
    // different processes, which must wait for each other's writes to see their step apply.
    const perProcess: { project: string; id: string; from: string; to: string }[][] = Array.from({ length: 10 }, () => []);
    refs.forEach((ref, i) => {
      CHAIN.forEach(([from, to], s) => perProcess[(4 * i + s) % 10]?.push({ ...ref, from, to }));
    });
    expect(perProcess.map((steps) => steps.length)).toEqual(Array(10).fill(20));

    const outcomes = await Promise.all(perProcess.map((steps) => startWorker(['steps', box.home, JSON.stringify(steps)]).done));
    for (const o of outcomes) {
      expect(o.code, o.stdout + o.stderr).toBe(0);
      expect(o.result).toMatchObject({ ok: true, applied: 20 });
    }

    for (const ref of refs) {
      const task = await readTaskFile(box, ref);
      expect(task.meta.status).toBe('done');
      // increment_review_round's own write, made after the status write, was not lost either.
      expect(task.meta.review_round).toBe(1);
      expect(task.body).toBe(EVERY_SECTION);
      const changes = (await historyLines(box, ref)).filter((e) => e.type === 'status.changed');
      expect(changes.map((e) => [e.from, e.to])).toEqual(CHAIN.map(([from, to]) => [from, to]));
      await expect(box.orange.engine.readVerified(ref)).resolves.toBeDefined();
    }
  }, 25_000);
});

describe('a writer killed with SIGKILL', () => {
  const BYTES = 2 * 1024 * 1024;

  /** Mirrors versionBody in race-worker.mjs: what write-loop wrote as version `n`. */
  function versionBody(n: number): string {
    const unit = `v${n} `;
    return `## Context\n\n${unit.repeat(Math.ceil(BYTES / unit.length))}\n`;
  }

  it('leaves TASK.md holding one whole version, and its temp files do not break store.list', async () => {
    const ref = await taskIn(box, 'working', { body: 'small\n' });
    const dir = box.orange.paths.agentDir(ref.project, ref.id);
    const seen = new Set<number>();
    for (let round = 0; round < 5; round++) {
      const writer = startWorker(['write-loop', box.home, ref.project, ref.id, String(BYTES)]);
      await writer.ready;
      await sleep(100 + Math.random() * 200);
      writer.proc.kill('SIGKILL');
      const outcome = await writer.done;
      expect(outcome.signal, outcome.stdout + outcome.stderr).toBe('SIGKILL');

      const task = await readTaskFile(box, ref);
      const version = Number(/^version (\d+)$/.exec(task.meta.summary)?.[1]);
      expect(version).toBeGreaterThan(0);
      // Compared as a boolean: a failed 2 MB string diff would bury the report.
      expect(task.body.length).toBe(versionBody(version).length);
      expect(task.body === versionBody(version)).toBe(true);
      seen.add(version);

      const listed = await box.orange.store.list(ref.project);
      expect(listed.unreadable).toEqual([]);
      expect(listed.tasks.map((t) => t.meta.id)).toEqual([ref.id]);
      await expect(box.orange.engine.readVerified(ref)).resolves.toMatchObject({ meta: { status: 'working' } });
    }
    // The writers were mid-loop when killed, not idle: several versions were written in each life.
    expect([...seen].some((v) => v > 1)).toBe(true);
    const leftovers = (await readdir(dir)).filter((name) => name.endsWith('.tmp'));
    expect(leftovers.every((name) => /^\.TASK\.md\.\d+\.[0-9a-f]{8}\.tmp$/.test(name))).toBe(true);

    // A kill lands between writes about half the time, so plant a torn temp file too: the
    // listing must not depend on where the last kill happened to land.
    await writeFile(join(dir, '.TASK.md.99999.deadbeef.tmp'), (await readFile(box.orange.paths.taskFile(ref.project, ref.id), 'utf8')).slice(0, 1000));
    const listed = await box.orange.store.list(ref.project);
    expect(listed).toEqual({ tasks: [expect.objectContaining({ meta: expect.objectContaining({ id: ref.id }) })], unreadable: [] });
    expect((await box.orange.store.list()).unreadable).toEqual([]);
  }, 20_000);

  it('a writer killed while holding the task lock does not block the next writer for good', async () => {
    const ref = await taskIn(box, 'working', { body: PLAN });
    const holder = startWorker(['hold-lock', box.home, ref.project, ref.id]);
    await holder.ready;
    holder.proc.kill('SIGKILL');
    expect((await holder.done).signal).toBe('SIGKILL');
    expect(existsSync(`${box.orange.paths.taskLockFile(ref.project, ref.id)}.lock`)).toBe(true);

    // The lock directory the killed holder left is taken over once stale (proper-lockfile, ~5 s).
    await box.orange.store.patch(ref.project, ref.id, { summary: 'after the kill' });
    const task = await readTaskFile(box, ref);
    expect(task.meta.summary).toBe('after the kill');
    expect(task.body).toBe(PLAN);
  }, 15_000);
});

/** Busy loops on every core until stopped: the races must hold on a loaded machine too. */
function cpuHogs(): () => void {
  const hogs = Array.from({ length: 2 }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  for (const hog of hogs) started.add(hog);
  return () => {
    for (const hog of hogs) hog.kill('SIGKILL');
  };
}

describe('agents editing TASK.md without the lock, beside engine writes', () => {
  /** Engine writes per writer process: each is a summary edit plus a sealed field. */
  const WRITES = 12;

  it('loses no edit on either side over thousands of rounds, under CPU load, and never reads as tampering', async () => {
    const ref = await taskIn(box, 'working', { body: PLAN });
    const stopHogs = cpuHogs();
    try {
      const editor = startWorker(['edit-loop', box.home, ref.project, ref.id]);
      const reader = startWorker(['read-loop', box.home, ref.project, ref.id]);
      await Promise.all([editor.ready, reader.ready]);
      const writers = ['a', 'b', 'c'].map((tag) => startWorker(['engine-loop', box.home, ref.project, ref.id, String(WRITES), tag]));
      const written = await Promise.all(writers.map((w) => w.done));
      for (const w of written) expect(w.code, w.stdout + w.stderr).toBe(0);
      editor.proc.stdin.write('stop\n');
      reader.proc.stdin.write('stop\n');
      const [edited, read] = await Promise.all([editor.done, reader.done]);
      expect(edited.code, edited.stdout + edited.stderr).toBe(0);
      expect(read.code, read.stdout + read.stderr).toBe(0);

      // Every one of the agent's edits is in the body, once.
      const rounds = Number(edited.result?.rounds);
      expect(rounds).toBeGreaterThanOrEqual(1000);
      const task = await box.orange.engine.readVerified(ref);
      const edits = task.body.split('\n').filter((line) => line.startsWith('edit-'));
      const missing = Array.from({ length: rounds }, (_, i) => `edit-${i + 1}`).filter((e) => !edits.includes(e));
      expect(missing, `${missing.length} of ${rounds} agent edits lost`).toEqual([]);
      expect(edits).toHaveLength(rounds);
      expect(task.body.startsWith(PLAN)).toBe(true);

      // Every engine write stands: each writer's last sealed field, and the last summary.
      const fields = task.meta as Record<string, unknown>;
      expect([fields.n_a, fields.n_b, fields.n_c]).toEqual([WRITES, WRITES, WRITES]);
      const summaries = (await historyLines(box, ref)).filter((e) => e.type === 'task.updated');
      expect(summaries).toHaveLength(3 * WRITES);
      expect(task.meta.summary).toBe((summaries.at(-1)?.summary as { to: string }).to);
      expect(task.meta.status).toBe('working');

      // A reader never failed on a TASK.md caught half-written.
      expect(read.result).toMatchObject({ failed: 0 });
    } finally {
      stopHogs();
    }
  }, 120_000);
});

describe('the listing index under concurrent listings', () => {
  it('4 processes listing while tasks are written, created and removed: no failure, and no stale entry once the writes end', async () => {
    const refs = await Promise.all(Array.from({ length: 6 }, () => taskIn(box, 'planning', { body: PLAN })));
    const listers = Array.from({ length: 4 }, () => startWorker(['list-loop', box.home, 'demo']));
    await Promise.all(listers.map((l) => l.ready));
    // Engine writes (summaries, a status), hand edits without the lock, a task created and one removed.
    const removed = refs[1]!;
    for (let round = 0; round < 8; round++) {
      for (const ref of refs) if (round <= 5 || ref !== removed) await box.orange.store.patch(ref.project, ref.id, { summary: `round ${round} of ${ref.id}` });
      await writeFile(box.orange.paths.taskFile('demo', refs[0]!.id), (await readFile(box.orange.paths.taskFile('demo', refs[0]!.id), 'utf8')).replace(/^summary: .*$/m, `summary: hand edit ${round}`));
      if (round === 3) refs.push(await taskIn(box, 'working', { body: PLAN }));
      if (round === 5) await box.orange.store.remove('demo', removed.id);
    }
    await box.orange.engine.transition(refs[2]!, 'working');
    for (const l of listers) l.proc.stdin.write('stop\n');
    const outcomes = await Promise.all(listers.map((l) => l.done));

    // The truth, read task by task (no index): what every last listing must show.
    const ids = (await readdir(box.orange.paths.projectTasksDir('demo'))).filter((name) => !name.startsWith('.'));
    const truth: Record<string, unknown> = {};
    for (const id of ids) {
      const { task, tampered } = await box.orange.store.inspect('demo', id);
      truth[id] = { summary: task.meta.summary, status: task.meta.status, tampered: tampered.map((t) => t.field) };
    }
    expect(Object.keys(truth)).toHaveLength(6);
    expect(truth[refs[0]!.id]).toMatchObject({ summary: 'hand edit 7' });
    expect(truth[refs[2]!.id]).toMatchObject({ status: 'working' });
    for (const outcome of outcomes) {
      const explain = outcome.stdout + outcome.stderr;
      expect(outcome.code, explain).toBe(0);
      expect(outcome.result, explain).toMatchObject({ failed: 0, unreadable: [] });
      expect(Number(outcome.result?.lists), explain).toBeGreaterThan(0);
      expect(outcome.result?.final, explain).toEqual(truth);
    }
    expect(Object.fromEntries((await box.orange.store.list('demo')).tasks.map((t) => [t.meta.id, { summary: t.meta.summary, status: t.meta.status, tampered: t.tampered }]))).toEqual(truth);
  }, 60_000);
});

describe('one critical section for a request', () => {
  it('20 processes asking for a status and a summary at once: one wins, and no refused request writes its summary', async () => {
    const ref = await taskIn(box, 'planning', { body: PLAN });
    const workers = Array.from({ length: 20 }, (_, i) => startWorker(['request', box.home, ref.project, ref.id, 'working', `summary ${i}`]));
    await Promise.all(workers.map((w) => w.ready));
    for (const w of workers) w.proc.stdin.write('go\n');
    const outcomes = await Promise.all(workers.map((w) => w.done));
    const winners = outcomes.filter((o) => o.code === 0);
    expect(winners, outcomes.map((o) => o.stdout + o.stderr).join('\n')).toHaveLength(1);
    for (const loser of outcomes.filter((o) => o.code !== 0)) expect(loser.result).toMatchObject({ ok: false, code: 'E_ILLEGAL_TRANSITION' });
    const history = await historyLines(box, ref);
    expect(history.filter((e) => e.type === 'task.updated')).toHaveLength(1);
    const task = await box.orange.engine.readVerified(ref);
    expect(task.meta.summary).toBe(winners[0]?.result?.summary);
  }, 30_000);
});
