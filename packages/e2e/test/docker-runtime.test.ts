import { lstat, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa, type ResultPromise } from 'execa';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { containersOf, dockerTestImage, removeContainersOf } from './docker-engine.js';
import { CLI, pluginUrl, Sandbox } from './sandbox.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const ESCAPING_AGENT = join(root, 'packages/e2e/test/escaping-agent.mjs');
const engine = await dockerTestImage();

let box: Sandbox | undefined;
let monitor: ResultPromise | undefined;
afterEach(async () => {
  monitor?.kill('SIGTERM');
  await monitor?.catch(() => undefined);
  monitor = undefined;
  if (box) await removeContainersOf(box.paths.home);
  await box?.cleanup();
  box = undefined;
});

/**
 * A sandbox whose agents run in containers of the test image: the scripted agent is Node, so the
 * host's node and Orange's checkout (the agent script and its modules) are mounted read-only, and
 * the agent logs to a folder of the host mounted for it — each an explicit mount of the config.
 */
async function dockerSandbox(image: string | null, options: { readonly poolSize?: number; readonly plugins?: readonly string[] } = {}): Promise<Sandbox> {
  const fixed = {
    image,
    cpus: 1,
    memory: '512m',
    network: 'none',
    env: ['ORANGE_AGENT_LOG_DIR'],
    mounts: [
      { source: process.execPath, target: process.execPath },
      { source: root, target: root },
    ],
  };
  // The log folder is under the sandbox's home, which the config learns from its environment.
  const logs = "process.env.ORANGE_HOME + '/agent-logs'";
  const created = await Sandbox.create({
    ...options,
    config: {
      imports: ["import { docker } from '@orange/runtime-docker';"],
      plugins: [
        ...(options.plugins ?? []),
        ...(image === null ? [] : [`docker({ ...${JSON.stringify(fixed)}, mounts: [...${JSON.stringify(fixed.mounts)}, { source: ${logs}, target: ${logs}, readonly: false }] })`]),
      ],
    },
  });
  created.env.ORANGE_AGENT_LOG_DIR = join(created.paths.home, 'agent-logs');
  await mkdir(created.env.ORANGE_AGENT_LOG_DIR, { recursive: true });
  return created;
}

/** Every transcript of a task's agents (what they printed in their containers), to explain a failure. */
async function transcripts(b: Sandbox, id: string): Promise<string> {
  const dir = b.paths.taskLogsDir('demo', id);
  const files = (await readdir(dir).catch(() => [] as string[])).sort();
  const texts = await Promise.all(files.map(async (f) => `--- ${f}\n${(await readFile(join(dir, f), 'utf8').catch(() => '')).slice(-3000)}`));
  return texts.join('\n');
}

/** Waits for a status; a miss says what the agents printed too. */
async function reach(b: Sandbox, id: string, status: string, ms: number) {
  try {
    return await b.waitForStatus(id, status, ms);
  } catch (error) {
    throw new Error(`${(error as Error).message}\ntranscripts:\n${await transcripts(b, id)}`);
  }
}

function startMonitor(b: Sandbox): ResultPromise {
  return execa(process.execPath, [CLI, 'monitor', '--interval', '1000'], { cwd: b.repo, env: b.env, extendEnv: false, reject: false, all: true });
}

describe.skipIf('skip' in engine)('the Docker runtime (a real engine)', () => {
  const image = 'image' in engine ? engine.image : '';

  it('runs the scripted lifecycle — plan, work, review FAIL then PASS, merge — with every agent in a container of its own, and leaves no container behind', async () => {
    box = await dockerSandbox(image);
    monitor = startMonitor(box);
    const since = Math.floor(Date.now() / 1000) - 1;
    const id = await box.createTask(['docker/lifecycle', 'A task whose agents run in containers'], 'agent.reviews: FAIL,PASS\n');
    // The worker runs in a container labelled with its task while it works.
    await box.waitFor('the worker container', async () => (await containersOf(box!.paths.home)).some((name) => name.includes(`-${id}-worker-`)), 60_000);
    const reviewing = await reach(box, id, 'reviewing', 120_000);
    expect(reviewing.meta.review_round).toBe(2);
    const history = await box.history(id);
    expect(history.filter((e) => e.type === 'status.changed').map((e) => e.to)).toEqual(['planning', 'working', 'agent-review', 'working', 'agent-review', 'reviewing']);
    const merged = await box.orange(['task', 'merge', id, '--yes']);
    expect(merged.stderr).toBe('');
    expect(merged.code).toBe(0);
    expect((await box.task(id)).meta.status).toBe('done');
    expect(await box.git(box.origin, 'log', '--format=%s', 'main')).toContain(`implement the task for task ${id}`);
    await box.waitFor('every container to go', async () => (await containersOf(box!.paths.home)).length === 0, 30_000);
    // Every agent had a container: the worker once (it stays through both rounds, the failed
    // review typed into it), a reviewer per round.
    const events = await execa('docker', ['events', '--since', String(since), '--until', String(Math.ceil(Date.now() / 1000)), '--filter', `label=orange.home=${box.paths.home}`, '--filter', 'event=start', '--format', '{{index .Actor.Attributes "orange.role"}}']);
    expect(String(events.stdout).split('\n').sort()).toEqual(['reviewer', 'reviewer', 'worker']);
    expect(await box.agentLog(id)).toMatch(/worker: notified: .*## Review/);
  }, 240_000);


  it('removes the container when the task is cancelled (its runner removes it as tmux hangs the window up)', async () => {
    box = await dockerSandbox(image);
    const id = await box.createTask(['docker/cancel', 'A slow task'], 'agent.pace: 4000\n');
    await box.waitFor('the worker container', async () => (await containersOf(box!.paths.home)).some((name) => name.includes(`-${id}-worker-`)), 60_000);
    const cancelled = await box.orange(['task', 'cancel', id, '--yes']);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    await box.waitFor('the container to go', async () => (await containersOf(box!.paths.home)).length === 0, 15_000);
  }, 120_000);

  it('says in one line why an agent cannot start — no such image, no engine — and doctor says it too', async () => {
    box = await Sandbox.create({ config: { imports: ["import { docker } from '@orange/runtime-docker';"], plugins: [`docker({ image: 'orange-no-such-image:1' })`] } });
    const missing = await box.orange(['task', 'create', 'docker/missing', 'No image']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^orange: task \w+ was created \(planning\), but spawn_agent failed: docker: image orange-no-such-image:1: no such image on this engine \(build or load it first: Orange never pulls an image\) \(the task is flagged for attention\)$/);
    const noEngine = await box.orange(['task', 'create', 'docker/no-engine', 'No engine'], { env: { DOCKER_HOST: 'unix:///nonexistent/docker.sock' } });
    expect(noEngine.code).toBe(1);
    expect(noEngine.stderr).toMatch(/spawn_agent failed: docker: image orange-no-such-image:1: no engine answers \(start dockerd, or point DOCKER_HOST at one\)/);
    expect(noEngine.stderr.trim().split('\n')).toHaveLength(1);
    const doctor = await box.orange(['doctor']);
    expect(doctor.code).toBe(1);
    expect(doctor.stderr).toContain('docker: image orange-no-such-image:1: no such image on this engine');
  }, 120_000);

  it('has doctor report the containers no agent owns and workspace gc remove them', async () => {
    box = await dockerSandbox(image);
    const id = await box.createTask(['docker/held', 'A task put aside', '--no-spawn']);
    const home = box.paths.home;
    const labels = (task: string) => ['--label', `orange.home=${home}`, '--label', 'orange.project=demo', '--label', `orange.task=${task}`, '--label', 'orange.role=worker'];
    // One of a task that is gone, running; one of a live task that never started.
    await execa('docker', ['run', '-d', '--name', `orange-test-gone-${process.pid}`, ...labels('V1StGXR8Z5jdHi6BmyT4a'), '--entrypoint', 'sleep', image, '300']);
    await execa('docker', ['create', '--name', `orange-test-created-${process.pid}`, ...labels(id), '--entrypoint', 'sleep', image, '300']);
    // Another home's container is none of this Orange's business.
    await execa('docker', ['create', '--name', `orange-test-foreign-${process.pid}`, '--label', 'orange.home=/elsewhere', '--label', 'orange.project=demo', '--label', `orange.task=${id}`, '--entrypoint', 'sleep', image, '300']);
    try {
      const doctor = await box.orange(['doctor']);
      expect(doctor.code, doctor.stderr).toBe(1);
      expect(doctor.stderr).toContain(`container orange-test-gone-${process.pid} (task V1StGXR8Z5jdHi6BmyT4a, worker) belongs to a task that is gone; orange workspace gc removes it`);
      expect(doctor.stderr).toContain(`container orange-test-created-${process.pid} (task ${id}, worker) is created; orange workspace gc removes it`);
      expect(doctor.stderr).not.toContain('foreign');
      const gc = await box.orange(['workspace', 'gc', '--json']);
      expect(gc.code, gc.stderr).toBe(0);
      expect((JSON.parse(gc.stdout) as { swept: string[] }).swept.sort()).toEqual([
        `removed container orange-test-created-${process.pid} (task ${id}, worker) is created`,
        `removed container orange-test-gone-${process.pid} (task V1StGXR8Z5jdHi6BmyT4a, worker) belongs to a task that is gone`,
      ]);
      expect(await containersOf(home)).toEqual([]);
      expect((await box.orange(['doctor'])).code).toBe(0);
    } finally {
      await execa('docker', ['rm', '--force', `orange-test-foreign-${process.pid}`], { reject: false });
    }
  }, 120_000);

  it("runs the pipeline's headless phases in containers: the result file written inside reaches the driver", async () => {
    box = await Sandbox.create();
    const b = box;
    const plan = join(b.dir, 'plan.json');
    const calls = join(b.dir, 'calls.jsonl');
    await writeFile(plan, JSON.stringify({ classify: [{ intent: 'bugfix', confidence: 0.9, cost: 0.02 }], reproduce: [{ cost: 0.03 }], fix: [{ cost: 0.04 }] }));
    await writeFile(calls, '');
    const scripted = {
      name: 'scripted',
      headless: [process.execPath, join(root, 'packages/e2e/test/pipeline-agent.mjs'), '{phase}', '{model}', '{prompt}'],
      tiers: ['haiku', 'sonnet', 'opus'],
      env: { PIPELINE_PLAN: plan, PIPELINE_CALLS: calls },
    };
    const mounts = [
      { source: process.execPath, target: process.execPath },
      { source: root, target: root },
      { source: plan, target: plan },
      { source: calls, target: calls, readonly: false },
    ];
    await writeFile(
      join(b.dir, 'orange.config.mjs'),
      [
        `import { command } from ${JSON.stringify(pluginUrl('plugins/harness-command'))};`,
        `import { pipeline } from ${JSON.stringify(pluginUrl('plugins/pipeline'))};`,
        "import { docker } from '@orange/runtime-docker';",
        `export default { harness: 'scripted', workflow: 'pipeline', plugins: [command(${JSON.stringify(scripted)}), pipeline({ intents: { bugfix: { phases: ['reproduce', 'fix'] } } }), docker(${JSON.stringify({ image, network: 'none', mounts })})] };`,
        '',
      ].join('\n'),
    );
    const since = Math.floor(Date.now() / 1000) - 1;
    const id = await b.createTask(['docker/pipeline', 'fix the login crash']);
    const task = await reach(b, id, 'completed', 90_000);
    expect(task.meta.cost_total_usd).toBeCloseTo(0.09);
    const runs = (await readFile(calls, 'utf8')).split('\n').filter(Boolean).map((line) => JSON.parse(line) as { phase: string; seen: string });
    expect(runs.map((r) => r.phase)).toEqual(['classify', 'reproduce', 'fix']);
    // A headless run has no identity and its container no CLI: it cannot call orange, only read TASK.md and write its result.
    for (const run of runs) expect(run.seen).toMatch(/^error: /);
    const events = await execa('docker', ['events', '--since', String(since), '--until', String(Math.ceil(Date.now() / 1000)), '--filter', `label=orange.home=${b.paths.home}`, '--filter', 'event=start', '--format', '{{index .Actor.Attributes "orange.phase"}}']);
    expect(String(events.stdout).split('\n')).toEqual(['classify', 'reproduce', 'fix']);
    expect(await containersOf(b.paths.home)).toEqual([]);
  }, 180_000);
});

// The attacks a hostile agent running as the same user can make today (docs/data.md, threat model).
const ATTACKS = ['state-and-ledger', 'review-round', 'budget', 'cancel-other', 'delete-state', 'index', 'outbox', 'fifo-log', 'fifo-history'];

describe.skipIf('skip' in engine)('an agent that goes around Orange, in tmux alone and in its container (a real engine)', () => {
  const image = 'image' in engine ? engine.image : '';
  let tmuxAlone: Escape;
  let contained: Escape;
  let shown = '';
  beforeAll(async () => {
    tmuxAlone = await escapes(null);
    contained = await escapes(image);
    shown = `tmux alone: ${JSON.stringify(tmuxAlone.attacks)}\nin a container: ${JSON.stringify(contained.attacks)}`;
  }, 240_000);

  it('tries every attack, in both', () => {
    expect(tmuxAlone.attacks.map((a) => a.name), shown).toEqual(ATTACKS);
    expect(contained.attacks.map((a) => a.name), shown).toEqual(ATTACKS);
  });

  // Judged by the host's files: each lands without the boundary (the documented limit) and not with it.
  it.each(ATTACKS)('%s: lands in tmux alone, not from a container', (name) => {
    expect(tmuxAlone.landed[name], `${name} without the runtime\n${shown}`).toBe(true);
    expect(contained.landed[name], `${name} in a container\n${shown}`).toBe(false);
  });

  it("finds none of Orange's files from inside the container (what needs them fails there too)", () => {
    for (const name of ['state-and-ledger', 'review-round', 'budget', 'cancel-other', 'delete-state']) {
      expect(contained.attacks.find((a) => a.name === name), shown).toMatchObject({ ok: false });
    }
  });
});

interface Escape {
  /** What the agent saw: whether each write or command seemed to go through. */
  readonly attacks: ReadonlyArray<{ name: string; ok: boolean; error?: string }>;
  /** What the host's files say: whether each attack reached them. */
  readonly landed: Record<string, boolean>;
}

/**
 * Runs the escaping agent as a task's worker — in a container of `image`, or in tmux alone when
 * null — and reads what Orange's files say once it has tried everything. The sandbox is cleaned
 * up here (the FIFOs it may have left taken away first: they would hang the cleanup's commands).
 */
async function escapes(image: string | null): Promise<Escape> {
  const b = await dockerSandbox(image, { plugins: [`command({ name: 'escaping', worker: [${JSON.stringify(process.execPath)}, ${JSON.stringify(ESCAPING_AGENT)}] })`] });
  box = b;
  const other = await b.createTask(['docker/other', 'somebody else’s task', '--no-spawn']);
  const victim = await b.createTask(['docker/victim', 'a third task', '--no-spawn']);
  const id = await b.createTask(['docker/escape', 'escape', '--harness', 'escaping'], `escape.home: ${b.paths.home}\nescape.other: ${other}\nescape.victim: ${victim}\n`);
  const resultFile = join(b.env.ORANGE_AGENT_LOG_DIR!, `escape-${id}.json`);
  let text = '';
  await b
    .waitFor('the escaping agent to try everything', async () => {
      text = await readFile(resultFile, 'utf8').catch(() => '');
      return text !== '';
    }, 60_000)
    .catch(async (error: Error) => {
      throw new Error(`${error.message}\ntranscripts:\n${await transcripts(b, id)}`);
    });
  const kind = async (path: string) => {
    const info = await lstat(path).catch(() => null);
    return info === null ? 'missing' : info.isFIFO() ? 'fifo' : 'file';
  };
  const json = async <T>(path: string) => readFile(path, 'utf8').then((t) => JSON.parse(t) as T, () => null);
  const state = (await json<{ meta: Record<string, unknown> }>(b.paths.taskStateFile('demo', id)))?.meta ?? {};
  const history = await readFile(b.paths.historyFile('demo', id), 'utf8').catch(() => '');
  const victimHistory = b.paths.historyFile('demo', victim);
  const forgedOutbox = join(b.paths.outboxDir, `forged-${id}.json`);
  const landed = {
    'state-and-ledger': state.branch === 'release' && history.includes('"forged"'),
    'review-round': state.review_round === 7,
    budget: state.budget_usd === 1_000_000,
    'cancel-other': (await b.history(other)).some((e) => e.to === 'cancelled'),
    'delete-state': (await kind(b.paths.taskStateFile('demo', victim))) === 'missing',
    index: (await readFile(b.paths.taskIndexFile('demo'), 'utf8').catch(() => '')).includes('forged'),
    outbox: (await kind(forgedOutbox)) !== 'missing',
    'fifo-log': (await kind(b.paths.logFile)) === 'fifo',
    'fifo-history': (await kind(victimHistory)) === 'fifo',
  };
  for (const path of [b.paths.logFile, victimHistory]) if ((await kind(path)) === 'fifo') await rm(path, { force: true });
  await rm(forgedOutbox, { force: true });
  await removeContainersOf(b.paths.home);
  await b.cleanup().catch(() => undefined);
  box = undefined;
  return { attacks: JSON.parse(text) as Escape['attacks'], landed };
}

/** The statuses a ledger's text reached. */
function historyOf(text: string): string[] {
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { to?: string }).to ?? '');
}
