// @orange/core in-process figures: one engine transition, listing 10,000 tasks, loading a
// TypeScript config. No tmux, git or agents: every action the workflow names is a no-op.
//
// - transition: planning → working (gate `plan` satisfied, no hooks) on a fresh task each time,
//   through Engine.transition: lock, read + ledger check, gate, write (fsync), history, reset write.
// - list: TaskStore.list() over 10,000 TASK.md files (~1–2 KB bodies, each with a history.jsonl
//   ledger that agrees), in a fresh child process per run so nothing earlier sits in its heap.
//   The page cache is warm (the files were just written).
// - config: loadConfig on a directory holding orange.config.ts (jiti). "cold" is the first call in
//   a fresh process (it also imports cosmiconfig and jiti; jiti's disk cache is warm, as for every
//   CLI call after the first); "first ever" is the very first process, which transpiles the file
//   and writes jiti's disk cache; "cached" is a later call in the same process.
import { execFile } from 'node:child_process';
import { mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { median, pct, printTable, root, withTempDir } from './lib.mjs';

const CORE = join(root, 'packages/core/dist/index.js');
const CORE_URL = pathToFileURL(CORE).href;
const { Orange, OrangePaths, newTaskId, newTaskMeta, noopActions, parseTaskFile, serializeTask } = await import(CORE_URL);

const TRANSITIONS = 300;
const TRANSITION_WARMUPS = 20;
const LIST_TASKS = 10_000;
const LIST_RUNS = 3;
const CONFIG_RUNS = 7;
const BATCH = 250;

const PLAN = 'APPROACH: add a retry with exponential backoff around the fetch in sync.ts, capped at 5 attempts.\nTOUCHING: src/sync.ts, src/sync.test.ts\nRISKS: a slow remote now blocks the sync loop for up to 31 s.';

/** `node <script> …args` → parsed JSON from its stdout. */
function child(script, args, nodeArgs = []) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [...nodeArgs, script, ...args], { maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${basename(script)} failed: ${String(stderr || error.message).trim()}`));
      else resolve(JSON.parse(String(stdout)));
    });
  });
}

const ms = (x) => `${x.toFixed(x < 10 ? 2 : 1)} ms`;
const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

async function transitions(dir) {
  const orange = await Orange.create({ plugins: [noopActions()], defaults: false }, { paths: new OrangePaths(join(dir, 'home-transition')) });
  await orange.projects.add({ name: 'bench', path: join(dir, 'repo'), default_branch: 'main' });
  const body = `## Context\n\nRetry failed syncs.\n\n## Plan\n\n${PLAN}\n`;
  const refs = [];
  for (let i = 0; i < TRANSITION_WARMUPS + TRANSITIONS; i++) {
    const id = newTaskId();
    await orange.store.create({ meta: newTaskMeta({ id, project: 'bench', branch: `bench/t${i}`, status: 'planning', summary: `transition ${i}` }), body });
    refs.push({ project: 'bench', id });
  }
  const times = [];
  for (const [i, ref] of refs.entries()) {
    const started = performance.now();
    const result = await orange.engine.transition(ref, 'working');
    const elapsed = performance.now() - started;
    if (result.to !== 'working' || result.failedHooks.length > 0) throw new Error(`transition ${i}: ${JSON.stringify(result)}`);
    if (i >= TRANSITION_WARMUPS) times.push(elapsed);
  }
  return times;
}

// ---------------------------------------------------------------------------------------------
// 10,000 tasks, written directly (serializeTask + the ledger lines appendHistory would write).

const FLOWS = {
  pending: ['pending'],
  clarification: ['clarification'],
  planning: ['pending', 'planning'],
  working: ['pending', 'planning', 'working'],
  'agent-review': ['pending', 'planning', 'working', 'agent-review'],
  reviewing: ['pending', 'planning', 'working', 'agent-review', 'reviewing'],
  stuck: ['pending', 'planning', 'working', 'stuck'],
  done: ['pending', 'planning', 'working', 'agent-review', 'reviewing', 'done'],
  cancelled: ['pending', 'planning', 'cancelled'],
};
const STATUSES = ['done', 'done', 'done', 'cancelled', 'reviewing', 'working', 'agent-review', 'planning', 'pending', 'clarification', 'stuck'];

function bodyFor(n, status, flow) {
  const words = 'sync retry cache token backoff queue worker index schema migration handler parser'.split(' ');
  const w = (k) => words[(n * 7 + k) % words.length];
  const sections = [
    `## Context\n\nThe ${w(0)} ${w(1)} fails intermittently when the ${w(2)} is cold (issue #${1000 + n}).\nReproduce with \`npm test -- ${w(3)}\`; see the log excerpt in the linked issue.\nAcceptance: the ${w(4)} survives three consecutive ${w(5)} timeouts without losing work.\n\n` +
      '```\n' +
      `[${n}] ${w(0)}: fetch https://api.example.com/v2/${w(1)}?page=${n % 40} failed: ETIMEDOUT after 10000 ms\n` +
      `[${n}] ${w(0)}: giving up; ${n % 50} item(s) left in the ${w(2)} queue\n` +
      '    at Sync.run (src/sync.ts:118:11)\n    at async Worker.tick (src/worker.ts:42:5)\n' +
      '```\n',
  ];
  if (status === 'clarification') sections.push(`## Questions\n\n- Should the ${w(6)} be retried on 4xx responses too?\n- Is a ${w(7)} change acceptable in this release?\n`);
  if (flow.includes('working')) {
    sections.push(
      `## Plan\n\nAPPROACH: wrap the ${w(1)} ${w(2)} call in a bounded retry with jittered exponential backoff; surface the last error.\nTOUCHING: src/${w(3)}.ts, src/${w(4)}.ts, test/${w(3)}.test.ts\nRISKS: longer worst-case latency for the ${w(5)} loop; make the cap configurable.\n`,
    );
  }
  if (flow.includes('agent-review') || status === 'stuck') {
    sections.push(
      `## Handoff\n\nDONE: retry helper in src/${w(3)}.ts with tests for 0, 1 and 5 failures; ${w(6)} now reports the attempt count.\nREMAINING: none.\nDECISIONS: jitter is ±20% of the delay; the cap is 5 attempts (31 s worst case).\nUNCERTAIN: whether the ${w(7)} should share the retry budget.\n`,
    );
  }
  if (flow.includes('reviewing')) {
    sections.push(
      `## Review\n\nVerdict: PASS\n\nThe retry is bounded and tested; the ${w(8)} change is minimal. Consider logging each retry at debug level.\nNit: \`delayFor(attempt)\` could be a pure function outside the class.\n`,
    );
  }
  if (status === 'stuck') sections.push(`## Review\n\nVerdict: FAIL\n\nThe ${w(9)} still loses work when the second retry times out.\n`);
  return sections.join('\n');
}

/** TASK.md text and history.jsonl lines for task n, as the store would have written them. */
function taskFiles(n, home) {
  const status = STATUSES[n % STATUSES.length];
  const flow = FLOWS[status];
  const id = newTaskId();
  const start = Date.UTC(2025, 0, 1) + n * 60_000;
  const at = (k) => new Date(start + k * 600_000).toISOString();
  const active = !['pending', 'done', 'cancelled'].includes(status);
  const meta = newTaskMeta({
    id,
    project: 'bench',
    branch: `feature/bench-${n}-${status}`,
    status,
    summary: `Make the sync loop survive transient failures (${n})`,
    harness: n % 3 === 0 ? 'codex' : 'claude',
    review_round: flow.includes('agent-review') ? 1 : 0,
    workspace: active ? join(home, 'workspaces', `bench--${n % 8}`) : null,
    tmux_session: active ? `orange-bench-${id}` : null,
    pr_url: status === 'reviewing' || status === 'done' ? `https://github.com/acme/app/pull/${2000 + n}` : null,
    worker_spawn: active ? `w${id.slice(0, 8)}` : null,
    created_at: at(0),
    updated_at: at(flow.length),
  });
  const events = [{ type: 'task.created', status: flow[0], branch: meta.branch, timestamp: at(0) }];
  for (let k = 1; k < flow.length; k++) events.push({ type: 'status.changed', from: flow[k - 1], to: flow[k], cause: 'request', timestamp: at(k) });
  return { id, task: serializeTask({ meta, body: bodyFor(n, status, flow) }), history: events.map((e) => `${JSON.stringify(e)}\n`).join('') };
}

async function seedList(home, count) {
  const paths = new OrangePaths(home);
  let taskBytes = 0;
  let historyBytes = 0;
  let smallest = Infinity;
  let largest = 0;
  const samples = [];
  for (let i = 0; i < count; i += BATCH) {
    await Promise.all(
      Array.from({ length: Math.min(BATCH, count - i) }, async (_, k) => {
        const n = i + k;
        const { id, task, history } = taskFiles(n, home);
        await mkdir(paths.agentDir('bench', id), { recursive: true });
        await Promise.all([writeFile(paths.taskFile('bench', id), task), writeFile(paths.historyFile('bench', id), history)]);
        const size = Buffer.byteLength(task);
        taskBytes += size;
        smallest = Math.min(smallest, size);
        largest = Math.max(largest, size);
        historyBytes += Buffer.byteLength(history);
        if (n % 97 === 0) samples.push(id);
      }),
    );
  }
  // Check the seeded files are what the store writes and reads: a byte-exact round trip, and a
  // ledger that agrees (Engine.readVerified throws E_TAMPERED otherwise).
  const orange = await Orange.create({ plugins: [noopActions()], defaults: false }, { paths });
  for (const id of samples) {
    const file = paths.taskFile('bench', id);
    const text = await readFile(file, 'utf8');
    if (serializeTask(parseTaskFile(text, file)) !== text) throw new Error(`seeded ${file} does not round-trip`);
    await orange.engine.readVerified({ project: 'bench', id });
  }
  return { taskBytes: taskBytes / count, smallest, largest, historyBytes: historyBytes / count };
}

const LIST_CHILD = `
const [coreUrl, home] = process.argv.slice(2);
const { readdir, readFile } = await import('node:fs/promises');
const { join } = await import('node:path');
const { TaskStore, OrangePaths } = await import(coreUrl);
const store = new TaskStore(new OrangePaths(home));
globalThis.gc(); globalThis.gc();
const before = process.memoryUsage();
let peakHeap = before.heapUsed;
const sample = () => { const h = process.memoryUsage().heapUsed; if (h > peakHeap) peakHeap = h; };
const timer = setInterval(sample, 1);
const started = performance.now();
const { tasks, unreadable } = await store.list();
const ms = performance.now() - started;
clearInterval(timer); sample();
const maxRss = process.resourceUsage().maxRSS * 1024;
globalThis.gc(); globalThis.gc();
const retained = process.memoryUsage().heapUsed - before.heapUsed;
const again = performance.now();
await store.list();
const warmMs = performance.now() - again;
// The same reads without parsing, to split I/O from parse + validation.
const dir = join(home, 'tasks', 'bench');
const read = performance.now();
await Promise.all((await readdir(dir)).filter((id) => !id.startsWith('.')).map((id) => readFile(join(dir, id, 'agent', 'TASK.md'), 'utf8')));
const readMs = performance.now() - read;
if (tasks.length === 0) throw new Error('no tasks listed');
console.log(JSON.stringify({ ms, warmMs, readMs, tasks: tasks.length, unreadable: unreadable.length, rssDelta: maxRss - before.rss, heapPeakDelta: peakHeap - before.heapUsed, retained }));
`;

async function list(dir) {
  const home = join(dir, 'home-list');
  const seedStarted = performance.now();
  const sizes = await seedList(home, LIST_TASKS);
  const seedMs = performance.now() - seedStarted;
  const script = join(dir, 'list-child.mjs');
  await writeFile(script, LIST_CHILD);
  const runs = [];
  for (let r = 0; r < LIST_RUNS; r++) runs.push(await child(script, [CORE_URL, home], ['--expose-gc']));
  for (const run of runs) {
    if (run.tasks !== LIST_TASKS || run.unreadable !== 0) throw new Error(`list saw ${run.tasks} tasks, ${run.unreadable} unreadable`);
  }
  return { runs, seedMs, sizes };
}

// ---------------------------------------------------------------------------------------------

const CONFIG_TS = `import { defineConfig, type OrangeConfigInput } from '@orange/core';

type Level = NonNullable<OrangeConfigInput['logLevel']>;
const logLevel: Level = process.env.ORANGE_DEBUG ? 'debug' : 'info';

export default defineConfig({
  harness: 'claude',
  reviewHarness: 'codex',
  poolSize: 4,
  pollIntervalMs: 15_000,
  logLevel,
});
`;

const CONFIG_CHILD = `
const [coreUrl, dir] = process.argv.slice(2);
const { loadConfig } = await import(coreUrl);
let started = performance.now();
const first = await loadConfig(dir);
const cold = performance.now() - started;
if (!first.file || !first.file.endsWith('orange.config.ts') || first.config.poolSize !== 4) throw new Error('unexpected config: ' + JSON.stringify(first));
const cached = [];
for (let i = 0; i < 10; i++) {
  started = performance.now();
  await loadConfig(dir);
  cached.push(performance.now() - started);
}
console.log(JSON.stringify({ cold, second: cached[0], cached }));
`;

async function config(dir) {
  // A directory of its own, so that jiti's disk-cache file (named after it) can be found and removed.
  const project = join(dir, `orange-bench-core-config-${process.pid}`);
  await mkdir(join(project, 'node_modules', '@orange'), { recursive: true });
  await symlink(join(root, 'packages/core'), join(project, 'node_modules', '@orange', 'core'), 'dir');
  await writeFile(join(project, 'orange.config.ts'), CONFIG_TS);
  const script = join(dir, 'config-child.mjs');
  await writeFile(script, CONFIG_CHILD);
  const jitiCache = join(tmpdir(), 'jiti');
  const ours = async () => (await readdir(jitiCache).catch(() => [])).filter((f) => f.startsWith(`${basename(project)}-`));
  try {
    for (const f of await ours()) await rm(join(jitiCache, f), { force: true });
    const firstEver = await child(script, [CORE_URL, project]);
    const runs = [];
    for (let r = 0; r < CONFIG_RUNS; r++) runs.push(await child(script, [CORE_URL, project]));
    return { firstEver, runs };
  } finally {
    for (const f of await ours()) await rm(join(jitiCache, f), { force: true });
  }
}

export default async function bench() {
  await withTempDir('core', async (dir) => {
    const times = await transitions(dir);
    const { runs, seedMs, sizes } = await list(dir);
    const m = (key) => median(runs.map((r) => r[key]));
    const { firstEver, runs: configRuns } = await config(dir);
    const tasks = LIST_TASKS.toLocaleString('en');
    printTable([
      { figure: `transition planning → working (plan gate, no-op actions), median of ${times.length}`, value: ms(median(times)) },
      { figure: '  p95 / max', value: `${ms(pct(times, 0.95))} / ${ms(Math.max(...times))}` },
      { figure: `store.list() over ${tasks} tasks, in process, median of ${runs.length} fresh processes`, value: `${ms(m('ms'))} (runs: ${runs.map((r) => r.ms.toFixed(0)).join(', ')} ms; the first builds the index)` },
      { figure: '  second call in the same process', value: ms(m('warmMs')) },
      { figure: '  a bare readFile pass over the same files (no parse)', value: ms(m('readMs')) },
      { figure: '  peak RSS / peak heap used during the first call (increase)', value: `+${mb(m('rssDelta'))} / +${mb(m('heapPeakDelta'))}` },
      { figure: '  heap retained by the result', value: `+${mb(m('retained'))} (${(m('retained') / LIST_TASKS / 1024).toFixed(1)} KB per task)` },
      { figure: `loadConfig (orange.config.ts via jiti), cold, median of ${configRuns.length} processes`, value: ms(median(configRuns.map((r) => r.cold))) },
      { figure: '  second call / later calls', value: `${ms(median(configRuns.map((r) => r.second)))} / ${ms(median(configRuns.flatMap((r) => r.cached)))}` },
      { figure: '  first ever (transpile + jiti disk-cache write)', value: ms(firstEver.cold) },
    ]);
    console.log(
      `the ${tasks} tasks: TASK.md ${(sizes.smallest / 1024).toFixed(1)}–${(sizes.largest / 1024).toFixed(1)} KB, mean ${(sizes.taskBytes / 1024).toFixed(1)} KB, ` +
        `+ history.jsonl ~${Math.round(sizes.historyBytes)} B each, written in ${(seedMs / 1000).toFixed(1)} s. The whole-process figure with its goal is in the cli table.`,
    );
  });
}
