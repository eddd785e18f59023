import { lstat, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { repoRoot as root } from '@orange/test-support';
import { execa, type ResultPromise } from 'execa';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { containersOf, dockerTestImage, removeContainersOf } from './docker-engine.js';
import { CLI, pluginUrl, Sandbox } from './sandbox.js';

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
async function dockerSandbox(image: string | null, options: { readonly poolSize?: number; readonly plugins?: readonly string[]; readonly env?: readonly string[] } = {}): Promise<Sandbox> {
  const fixed = {
    image,
    cpus: 1,
    memory: '512m',
    network: 'none',
    env: ['ORANGE_AGENT_LOG_DIR', ...(options.env ?? [])],
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
    // The live preview reads the worker's window: what the agent prints in its container.
    await box.waitFor('the worker container to show in its window', async () => (await box!.tmux('capture-pane', '-p', '-t', `=demo/${id}:=worker`)).stdout.includes('worker: '), 30_000);
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
    // The transcripts hold what each container printed.
    expect(await transcripts(box, id)).toMatch(/--- worker-\w+\.log\n[\s\S]*worker: started in planning/);
  }, 240_000);


  it('removes the container when the task is cancelled (its runner removes it as tmux hangs the window up)', async () => {
    box = await dockerSandbox(image);
    const id = await box.createTask(['docker/cancel', 'A slow task'], 'agent.pace: 4000\n');
    await box.waitFor('the worker container', async () => (await containersOf(box!.paths.home)).some((name) => name.includes(`-${id}-worker-`)), 60_000);
    // The limits and the user the config and the host give it.
    const [name] = await containersOf(box.paths.home);
    const inspected = await execa('docker', ['inspect', '--format', '{{.HostConfig.NanoCpus}} {{.HostConfig.Memory}} {{.HostConfig.PidsLimit}} {{.Config.User}} {{.HostConfig.CapDrop}} {{.HostConfig.NetworkMode}}', name!]);
    expect(String(inspected.stdout)).toBe(`1000000000 ${512 * 1024 * 1024} 1024 ${process.getuid!()}:${process.getgid!()} [ALL] none`);
    const cancelled = await box.orange(['task', 'cancel', id, '--yes']);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    await box.waitFor('the container to go', async () => (await containersOf(box!.paths.home)).length === 0, 15_000);
  }, 120_000);

  it('counts a crash in a container as in tmux alone: a respawn starts the worker in a new container, the second crash makes it stuck (whose agent starts in one too)', async () => {
    box = await dockerSandbox(image);
    monitor = startMonitor(box);
    const since = Math.floor(Date.now() / 1000) - 1;
    const id = await box.createTask(['docker/crash', 'A worker that crashes'], 'agent.worker: crash\n');
    const crashes = async () => (await box!.history(id)).filter((e) => e.type === 'agent.crashed');
    await box.waitFor('the first crash', async () => (await crashes()).length === 1, 60_000);
    expect((await box.task(id)).meta).toMatchObject({ status: 'planning', crash_count: 1, worker_spawn: null });
    const respawned = await box.orange(['task', 'respawn', id]);
    expect(respawned.code, respawned.stderr).toBe(0);
    await reach(box, id, 'stuck', 60_000);
    expect(await crashes()).toMatchObject([{ status: 'planning', crash_count: 1 }, { status: 'planning', crash_count: 2 }]);
    // The first worker, the respawned one, and the one the move into stuck starts: each in a container.
    const starts = async () => {
      const events = await execa('docker', ['events', '--since', String(since), '--until', String(Math.ceil(Date.now() / 1000)), '--filter', `label=orange.home=${box!.paths.home}`, '--filter', 'event=start', '--format', '{{index .Actor.Attributes "orange.role"}}']);
      return String(events.stdout).split('\n').filter(Boolean);
    };
    await box.waitFor('three worker containers started', async () => (await starts()).length >= 3, 30_000).catch(() => undefined);
    const history = (await box.history(id)).map((e) => `${e.type} ${JSON.stringify(e)}`).join('\n');
    expect(await starts(), history).toEqual(['worker', 'worker', 'worker']);
  }, 120_000);

  it('leaves the agents of projects it does not name in tmux alone', async () => {
    box = await Sandbox.create({ config: { imports: ["import { docker } from '@orange/runtime-docker';"], plugins: [`docker({ image: ${JSON.stringify(image)}, projects: ['elsewhere'] })`] } });
    const since = Math.floor(Date.now() / 1000) - 1;
    const id = await box.createTask(['docker/not-here', 'Runs in tmux alone'], 'agent.reviews: PASS\n');
    await box.waitForStatus(id, 'reviewing', 60_000);
    const events = await execa('docker', ['events', '--since', String(since), '--until', String(Math.ceil(Date.now() / 1000)), '--filter', `label=orange.home=${box.paths.home}`]);
    expect(String(events.stdout)).toBe('');
  }, 120_000);

  it("runs nothing on the host from a repository the agent plants as a submodule in its worktree when Orange's git looks at it", async () => {
    const marker = join('/tmp', `orange-escape-marker-${process.pid}-${Date.now()}`);
    const planting = `command({ name: 'planting', worker: [${JSON.stringify(process.execPath)}, ${JSON.stringify(join(root, 'packages/e2e/test/submodule-agent.mjs'))}] })`;
    box = await dockerSandbox(image, { plugins: [planting], env: ['ORANGE_ESCAPE_MARKER'] });
    box.env.ORANGE_ESCAPE_MARKER = marker;
    const id = await box.createTask(['docker/plant', 'plant a submodule', '--harness', 'planting']);
    const b = box;
    await b.waitFor('the submodule to be planted', async () => (await readFile(join(b.env.ORANGE_AGENT_LOG_DIR!, `planted-${id}`), 'utf8').catch(() => '')) !== '', 60_000).catch(async (error: Error) => {
      throw new Error(`${error.message}\ntranscripts:\n${await transcripts(b, id)}`);
    });
    const workspace = (await b.task(id)).meta.workspace as string;
    // The plant works: a plain git status in that worktree runs its command.
    await execa('git', ['-C', workspace, 'status', '--short'], { reject: false });
    expect(await lstat(marker).then(() => true, () => false), 'a plain git status should have run the planted command').toBe(true);
    await rm(marker, { force: true });
    // Orange's own git calls in the worktree (its diff, the release that cleans it on cancel) do not.
    await b.orange(['task', 'show', id]);
    const cancelled = await b.orange(['task', 'cancel', id, '--yes']);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    await b.orange(['workspace', 'gc']);
    expect(await lstat(marker).then(() => true, () => false), "Orange's git ran the command the agent planted").toBe(false);
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

  it("runs the pipeline's headless phases and its checks in containers: the result file written inside reaches the driver", async () => {
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
        `export default { harness: 'scripted', workflow: 'pipeline', plugins: [command(${JSON.stringify(scripted)}), pipeline({ intents: { bugfix: { phases: ['reproduce', 'fix'] } }, verify: [['sh', '-c', 'test -f /.dockerenv']] }), docker(${JSON.stringify({ image, network: 'none', mounts })})] };`,
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
    // The check runs what the agents wrote: in a container too (it passes only there: /.dockerenv).
    expect(String(events.stdout).split('\n')).toEqual(['classify', 'reproduce', 'fix', 'verify']);
    expect(await containersOf(b.paths.home)).toEqual([]);
  }, 180_000);
});

// The attacks a hostile agent running as the same user can make today (docs/data.md, threat model).
const ATTACKS = ['state-and-ledger', 'review-round', 'budget', 'cancel-other', 'delete-state', 'index', 'outbox', 'fifo-log', 'fifo-history', 'other-worktree', 'host-home'];

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
  // Both worktrees of the pool exist: the agent works in one, the other is another task's.
  const init = await b.orange(['workspace', 'init']);
  if (init.code !== 0) throw new Error(`workspace init failed: ${init.stderr}`);
  // The home of the user Orange runs as, as the agent would guess it (a folder of the test's own stands in for it).
  const hostHome = join(b.dir, 'user-home');
  await mkdir(hostHome);
  const id = await b.createTask(['docker/escape', 'escape', '--harness', 'escaping'], `escape.home: ${b.paths.home}\nescape.other: ${other}\nescape.victim: ${victim}\nescape.hosthome: ${hostHome}\n`);
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
    'other-worktree': (await Promise.all([1, 2].map((n) => kind(join(b.paths.workspaceDir('demo', n), `escaped-${id}.txt`))))).includes('file'),
    'host-home': (await kind(join(hostHome, `.orange-escaped-${id}`))) === 'file',
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
