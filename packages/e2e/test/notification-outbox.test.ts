/**
 * One-shot CLI calls hand their notifications to the outbox and a detached deliverer: an agent's
 * `orange task update` never waits on a slow or unreachable notifier. Against a webhook receiver
 * on 127.0.0.1 and the real CLI: the call exits at once while the receiver holds the post open; a
 * deliverer killed mid-delivery leaves its entry to the next monitor pass; two deliverers started
 * together deliver each entry once, the one without the outbox's lock trying while the other holds it.
 */
import { mkdir, mkdtemp, readdir, readFile, readlink, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { NotificationOutbox, newTaskId, type Notification } from '@orange/core';
import { httpReceiver, waitFor, type HttpReceiver, type Reply } from '@orange/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { stuckNotification as notification } from '../../core/test/stuck-notification.js';
import { CLI, pluginUrl, Sandbox } from './sandbox.js';

let box: Sandbox | undefined;
let hook: HttpReceiver | undefined;
afterEach(async () => {
  // The receiver first: a post it still holds open must fail so the deliverer can finish.
  await hook?.close();
  await box?.cleanup();
  box = hook = undefined;
});

/** The webhook's own time limit per attempt: a CLI call that waited for delivery would last at least this long. */
const WEBHOOK_TIMEOUT_MS = 20_000;

async function boxWithWebhook(replies: Reply[]): Promise<Sandbox> {
  hook = await httpReceiver(replies);
  return boxPostingTo(hook.url);
}

function boxPostingTo(url: string): Promise<Sandbox> {
  return Sandbox.create({
    config: {
      imports: [`import { webhook } from ${JSON.stringify(pluginUrl('plugins/notifier-webhook'))};`],
      plugins: [`webhook({ url: ${JSON.stringify(url)}, timeoutMs: ${WEBHOOK_TIMEOUT_MS}, retries: 0 })`],
    },
  });
}

/**
 * Loaded with `node --require` before the CLI: the process writes the time it is ready, blocks
 * until the test writes to its FIFO, then writes the time it went on. Opened read-write, the FIFO
 * never blocks the open (so "ready" means the process already waits on it); the read waits for "go".
 */
const BARRIER = `const { openSync, readSync, writeFileSync } = require('node:fs');
const go = openSync(process.env.BARRIER_GO, 'r+');
writeFileSync(process.env.BARRIER_DIR + '/ready-' + process.env.BARRIER_N, String(Date.now()));
readSync(go, Buffer.alloc(2));
writeFileSync(process.env.BARRIER_DIR + '/went-' + process.env.BARRIER_N, String(Date.now()));
`;

/** A task waiting for a workspace (no agent): moving it to cancelled raises an `info` notification. */
async function pendingTask(b: Sandbox, branch: string): Promise<string> {
  return b.createTask([branch, `Summary of ${branch}`, '--no-spawn']);
}

const outboxEntries = async (b: Sandbox) => (await readdir(b.paths.outboxDir).catch(() => [] as string[])).filter((n) => n.endsWith('.json'));

/** Pids of `orange notifications deliver` processes working in `cwd` (this sandbox's, not another test's). */
async function deliverers(cwd: string): Promise<number[]> {
  const found = await execa('pgrep', ['-f', '--', 'run\\.cjs notifications deliver'], { reject: false });
  const pids: number[] = [];
  for (const pid of String(found.stdout).split('\n').filter(Boolean).map(Number)) {
    if ((await readlink(`/proc/${pid}/cwd`).catch(() => '')) === cwd) pids.push(pid);
  }
  return pids;
}

describe('notification delivery from one-shot CLI calls', () => {
  it('task cancel exits at once while the webhook never answers, and the post still arrives', async () => {
    box = await boxWithWebhook(['hang']);
    const id = await pendingTask(box, 'fix/quick');
    const started = performance.now();
    const update = await box.orange(['task', 'cancel', id, '--yes']);
    const elapsed = performance.now() - started;
    expect(update.code, update.stderr).toBe(0);
    // Waiting for delivery would take the webhook's whole time limit; a loaded 2-core machine needs a few seconds for any call.
    expect(elapsed, `task cancel took ${Math.round(elapsed)} ms`).toBeLessThan(WEBHOOK_TIMEOUT_MS / 2);
    const [post] = await within(30_000, 'the webhook post', hook!.received(1));
    expect(JSON.parse(post?.body ?? '{}')).toMatchObject({ event: 'status.changed', priority: 'info', from: 'pending', to: 'cancelled', task: { id } });
    // Delivered after the call ended: the deliverer, not the CLI, is the one holding the post open.
    expect(await deliverers(box.repo)).toHaveLength(1);
    // The receiver lets go: the attempt fails, is logged, and the entry is removed all the same.
    await hook!.close();
    await box.waitFor('the outbox to be empty', async () => (await outboxEntries(box!)).length === 0, 30_000);
    const log = await readFile(box.paths.logFile, 'utf8');
    expect(log).toMatch(/"msg":"notifier failed".*"notifier":"webhook"/);
    await box.waitFor('the deliverer to exit', async () => (await deliverers(box!.repo)).length === 0, 15_000);
  });

  it('an entry left by a killed deliverer is delivered by the next monitor pass', async () => {
    box = await boxWithWebhook(['hang', 200]);
    const id = await pendingTask(box, 'fix/killed');
    expect((await box.orange(['task', 'cancel', id, '--yes'])).code).toBe(0);
    const [first] = await within(30_000, 'the first post', hook!.received(1));
    const [pid] = await deliverers(box.repo);
    expect(pid, 'the deliverer holding the post').toBeDefined();
    process.kill(pid as number, 'SIGKILL');
    await box.waitFor('the deliverer to die', async () => (await deliverers(box!.repo)).length === 0, 10_000);
    expect(await outboxEntries(box)).toHaveLength(1);
    // Its lock goes stale after 5 s and the entry is left to its deliverer for 10 s; then a pass delivers it.
    await box.waitFor(
      'a monitor pass to deliver the entry',
      async () => {
        const result = await box!.orange(['monitor', '--once']);
        if (result.code !== 0) throw new Error(result.stderr);
        return hook!.requests.length >= 2;
      },
      60_000,
    );
    expect(hook!.requests).toHaveLength(2);
    expect(hook!.requests[1]?.body, 'the same notification, byte for byte').toBe(first?.body);
    expect(await outboxEntries(box)).toEqual([]);
  });

  it('two deliverers released together deliver each entry once: the one that finds the outbox taken delivers none', async () => {
    // The first post is held open until released, and the deliverer that sent it keeps the outbox's lock.
    box = await boxWithWebhook(['hang']);
    const holding = hook!;
    const outbox = new NotificationOutbox(box.paths);
    const ids = Array.from({ length: 8 }, () => newTaskId());
    for (const id of ids) await outbox.put({ notification: notification(id), cwd: box.repo });
    const barrier = join(box.dir, 'barrier');
    await mkdir(barrier);
    await writeFile(join(barrier, 'barrier.cjs'), BARRIER);
    const gos = [0, 1].map((n) => join(barrier, `go-${n}`));
    await execa('mkfifo', gos);
    const runs = [0, 1].map((n) =>
      execa(process.execPath, ['--require', join(barrier, 'barrier.cjs'), CLI, 'notifications', 'deliver', '--json'], {
        cwd: box!.repo,
        env: { ...box!.env, BARRIER_DIR: barrier, BARRIER_GO: gos[n]!, BARRIER_N: String(n) },
        extendEnv: false,
        reject: false,
      }).then((result) => ({ n, result, endedAt: Date.now() })),
    );
    const times = (what: 'ready' | 'went') => Promise.all([0, 1].map(async (n) => Number(await readFile(join(barrier, `${what}-${n}`), 'utf8'))));
    const readyAt = await waitFor('both deliverers to wait at the barrier', () => times('ready'), { timeoutMs: 30_000 });
    const goAt = Date.now();
    await Promise.all(gos.map((go) => writeFile(go, 'go')));
    // The first post is held, and with it the outbox's lock, until the other deliverer has ended
    // (it may end before the post is even sent): it cannot have run after the holder, only beside it.
    const [idle, firstPostAt] = await within(30_000, 'the first post, and the other deliverer to end', Promise.all([Promise.race(runs), holding.received(1).then(([first]) => first!.at)]));
    const releasedAt = Date.now();
    holding.release();
    const holder = (await Promise.all(runs))[1 - idle.n]!;
    for (const { result } of [idle, holder]) expect(result.exitCode, String(result.stderr)).toBe(0);
    const wentAt = await times('went');
    const timeline = `ready ${readyAt.join(', ')}; go ${goAt}; went ${wentAt.join(', ')}; first post ${firstPostAt}; ended ${idle.endedAt} (idle), ${holder.endedAt} (holder); released ${releasedAt}`;
    for (const at of readyAt) expect(at, timeline).toBeLessThanOrEqual(goAt);
    // The two runs overlap: both went on before either ended, and the holder ended only once released.
    expect(Math.max(...wentAt), timeline).toBeLessThanOrEqual(idle.endedAt);
    expect(releasedAt, timeline).toBeLessThanOrEqual(holder.endedAt);
    // Answered when released, not by the webhook's time limit.
    expect(holder.endedAt - releasedAt, timeline).toBeLessThan(WEBHOOK_TIMEOUT_MS / 2);
    const delivered = (r: typeof idle) => (JSON.parse(String(r.result.stdout)) as { delivered: number }).delivered;
    expect({ idle: delivered(idle), holder: delivered(holder) }, timeline).toEqual({ idle: 0, holder: ids.length });
    expect(holding.requests.map((r) => (JSON.parse(r.body) as Notification).task.id).sort()).toEqual([...ids].sort());
    expect(await outboxEntries(box)).toEqual([]);
  });
});

describe('the routing of an outbox entry', () => {
  it('never loads the config of a directory outside every registered project: the deliverer routes its entry by its own config', async () => {
    box = await boxWithWebhook([]);
    // A config that leaves a mark when it is loaded, where an agent could put one: outside every project.
    const outside = await mkdtemp(join(tmpdir(), 'orange-outside-'));
    const marker = join(outside, 'loaded');
    try {
      await writeFile(join(outside, 'orange.config.mjs'), `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker)}, 'loaded');\nexport default {};\n`);
      const id = newTaskId();
      await new NotificationOutbox(box.paths).put({ notification: notification(id), cwd: outside });
      const run = await execa(process.execPath, [CLI, 'notifications', 'deliver', '--json'], { cwd: box.repo, env: box.env, extendEnv: false, reject: false });
      expect(run.exitCode, String(run.stderr)).toBe(0);
      expect(JSON.parse(String(run.stdout))).toEqual({ delivered: 1 });
      expect(await stat(marker).then(() => 'loaded', () => 'not loaded'), 'the outside config').toBe('not loaded');
      // Delivered by the repository's config: its webhook got the post.
      expect(hook!.requests.map((r) => (JSON.parse(r.body) as Notification).task.id)).toEqual([id]);
      expect(await readFile(box.paths.logFile, 'utf8')).toContain('"msg":"outbox entry raised outside every registered project; routed by this config"');
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });
});

/** `promise`, or a clear failure after `ms`. */
async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<never>((_resolve, reject) => (timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
