import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { errorOf, recordingPlugin, sandbox, taskIn, type Sandbox } from '../../test/fixtures.js';
import { stuckNotification as stuck } from '../../test/stuck-notification.js';
import { Monitor } from '../monitor/monitor.js';
import { NotificationOutbox } from './outbox.js';
import { OUTBOX_GRACE_MS } from './notifications.js';
import { Orange } from '../orange.js';
import type { Notification, Notifier, OrangePlugin } from '../plugin/index.js';
import { OrangePaths } from '../store/paths.js';

/** A plugin registering one notifier per name that records what it was sent (or fails as told). */
function notifiers(received: Record<string, Notification[]>, behave: Record<string, 'throw' | 'hang'> = {}, signals: Record<string, AbortSignal> = {}): OrangePlugin {
  return {
    name: 'test-notifiers',
    apply(orange) {
      for (const name of Object.keys(received)) {
        const notifier: Notifier = {
          name,
          async send(notification, { signal }) {
            received[name]?.push(notification);
            signals[name] = signal;
            if (behave[name] === 'throw') throw new Error(`${name} is down`);
            if (behave[name] === 'hang') await new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
          },
        };
        orange.notifications.register(notifier);
      }
    },
  };
}

async function logLines(box: Sandbox): Promise<Array<Record<string, unknown>>> {
  const text = await readFile(box.orange.paths.logFile, 'utf8').catch(() => '');
  return text.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
}

let box: Sandbox | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await box?.orange.notifications.settle();
  await box?.cleanup();
  box = undefined;
});

/**
 * Another Orange instance on the box's home (another process, as far as the outbox can tell):
 * a deliverer, or with `outbox` a one-shot CLI call.
 */
function processOn(home: string, plugins: OrangePlugin[], options: { outbox?: boolean; config?: Record<string, unknown> } = {}): Promise<Orange> {
  return Orange.create(
    { ...options.config, plugins: [recordingPlugin([]), ...plugins] },
    { paths: new OrangePaths(home), notificationDelivery: options.outbox ? 'outbox' : 'in-process' },
  );
}

const outboxNames = async (home: string) => (await readdir(new OrangePaths(home).outboxDir).catch(() => [] as string[])).filter((n) => n.endsWith('.json'));

describe('notification events', () => {
  it('raises action when a task reaches reviewing, with the task, the move and an attach line', async () => {
    const got = { desk: [] as Notification[] };
    box = await sandbox({}, [notifiers(got)]);
    const ref = await taskIn(box, 'agent-review', { body: '## Review\n\nVerdict: PASS\n' });
    await box.orange.engine.transition(ref, 'reviewing');
    await box.orange.notifications.settle();
    expect(got.desk).toEqual([
      {
        event: 'status.changed',
        priority: 'action',
        title: 'Ready for review: a task in agent-review',
        reason: null,
        task: expect.objectContaining({ id: ref.id, project: 'demo', status: 'reviewing', summary: 'a task in agent-review', attach: `orange task attach ${ref.id}` }),
        from: 'agent-review',
        to: 'reviewing',
        timestamp: expect.any(String),
      },
    ]);
  });

  it('raises urgent for stuck and clarification, info for done and cancelled, nothing for working', async () => {
    const got = { all: [] as Notification[] };
    box = await sandbox({}, [notifiers(got)]);
    const stuck = await taskIn(box, 'working');
    await box.orange.engine.transition(stuck, 'stuck');
    const unclear = await taskIn(box, 'planning');
    await box.orange.engine.transition(unclear, 'clarification', { actor: 'agent' });
    await box.orange.engine.transition(unclear, 'planning', { actor: 'agent' });
    const done = await taskIn(box, 'reviewing');
    await box.orange.engine.transition(done, 'done');
    const dropped = await taskIn(box, 'reviewing');
    await box.orange.engine.transition(dropped, 'cancelled');
    await box.orange.notifications.settle();
    expect(got.all.map((n) => [n.task.id, n.to, n.priority])).toEqual([
      [stuck.id, 'stuck', 'urgent'],
      [unclear.id, 'clarification', 'urgent'],
      [done.id, 'done', 'info'],
      [dropped.id, 'cancelled', 'info'],
    ]);
  });

  it('raises urgent when an agent crashes and when an action fails, with the reason', async () => {
    const got = { all: [] as Notification[] };
    const failing: OrangePlugin = {
      name: 'failing',
      apply: (orange) => orange.hooks.actions.for('release_workspace').tapPromise('failing', async () => {
        throw new Error('disk full');
      }),
    };
    box = await sandbox({}, [notifiers(got), failing]);
    const crashed = await taskIn(box, 'working', { meta: { worker_spawn: 's1' } });
    await box.orange.engine.agentExited(crashed, 'worker', 's1', 'exit');
    const failed = await taskIn(box, 'reviewing');
    await box.orange.engine.transition(failed, 'done');
    await box.orange.notifications.settle();
    // The move's own notice is raised once its status is written, before its actions run.
    expect(got.all.map((n) => [n.event, n.priority, n.task.id])).toEqual([
      ['agent.crashed', 'urgent', crashed.id],
      ['status.changed', 'info', failed.id],
      ['hook.failed', 'urgent', failed.id],
    ]);
    expect(got.all[0]?.reason).toContain('without its artifact');
    expect(got.all[2]).toMatchObject({ title: expect.stringContaining('release_workspace'), reason: 'disk full' });
  });

  it('routes each priority only to the notifiers the config names for it', async () => {
    const got = { desktop: [] as Notification[], slack: [] as Notification[] };
    box = await sandbox({ notifications: { routes: { urgent: ['desktop', 'slack'], info: ['slack'] } } }, [notifiers(got)]);
    const stuck = await taskIn(box, 'working');
    await box.orange.engine.transition(stuck, 'stuck');
    const done = await taskIn(box, 'reviewing');
    await box.orange.engine.transition(done, 'done');
    const ready = await taskIn(box, 'agent-review', { body: '## Review\n\nVerdict: PASS\n' });
    await box.orange.engine.transition(ready, 'reviewing');
    await box.orange.notifications.settle();
    expect(got.desktop.map((n) => n.to)).toEqual(['stuck']);
    expect(got.slack.map((n) => n.to)).toEqual(['stuck', 'done']);
  });

  it('takes status priorities from the config: one silenced, one added', async () => {
    const got = { all: [] as Notification[] };
    box = await sandbox({ notifications: { statuses: { done: null, working: 'info' } } }, [notifiers(got)]);
    const ref = await taskIn(box, 'reviewing');
    await box.orange.engine.transition(ref, 'working');
    const done = await taskIn(box, 'reviewing');
    await box.orange.engine.transition(done, 'done');
    await box.orange.notifications.settle();
    expect(got.all.map((n) => [n.to, n.priority])).toEqual([['working', 'info']]);
  });

  it('refuses a route naming a notifier no plugin provides, naming the field', async () => {
    const error = await errorOf(sandbox({ notifications: { routes: { urgent: ['pager'] } } }, [notifiers({ desktop: [] })]));
    expect(error.code).toBe('E_CONFIG');
    expect(error.message).toContain('field "notifications.routes.urgent" names notifier "pager", which no plugin provides (known: desktop)');
  });

  it('refuses an unknown priority in the routes as a config error', async () => {
    const error = await errorOf(sandbox({ notifications: { routes: { loud: ['desktop'] } } }));
    expect(error.code).toBe('E_CONFIG');
    expect(error.message).toContain('notifications.routes');
  });
});

describe('notifications raised as a task is created', () => {
  it('raises urgent for a task created in clarification and action for one created in reviewing; nothing for pending', async () => {
    const got = { all: [] as Notification[] };
    box = await sandbox({}, [notifiers(got)]);
    const unclear = await box.orange.engine.createTask({ project: 'demo', summary: '', spawn: false });
    const ready = await box.orange.engine.createTask({ project: 'demo', summary: 'Review the docs', status: 'reviewing', spawn: false });
    await box.orange.engine.createTask({ project: 'demo', summary: 'Later', spawn: false });
    await box.orange.notifications.settle();
    expect(unclear.task.meta.status).toBe('clarification');
    expect(got.all.map((n) => [n.event, n.priority, n.task.id, n.from, n.to, n.title])).toEqual([
      ['task.created', 'urgent', unclear.task.meta.id, null, 'clarification', `Needs clarification: ${unclear.task.meta.branch}`],
      ['task.created', 'action', ready.task.meta.id, null, 'reviewing', 'Ready for review: Review the docs'],
    ]);
  });
});

describe('refused automatic moves', () => {
  it('raises a warning when an exit rule’s move is vetoed (the task is flagged), but not for a refused request', async () => {
    const got = { all: [] as Notification[] };
    const veto: OrangePlugin = {
      name: 'freeze',
      apply: (orange) => orange.hooks.beforeTransition.tap('freeze', (event) => (event.to === 'agent-review' ? 'review is frozen this week' : undefined)),
    };
    box = await sandbox({}, [notifiers(got), veto]);
    const ref = await taskIn(box, 'working', { meta: { worker_spawn: 's1' }, body: '## Handoff\n\nDONE: the form\n' });
    await box.orange.engine.agentExited(ref, 'worker', 's1', 'exit');
    await expect(box.orange.engine.transition(ref, 'agent-review')).rejects.toMatchObject({ code: 'E_VETOED' });
    await box.orange.notifications.settle();
    expect((await box.orange.store.read(ref.project, ref.id)).meta.attention).toContain('exit rule refused');
    expect(got.all).toEqual([
      expect.objectContaining({ event: 'transition.refused', priority: 'warning', from: 'working', to: 'agent-review', reason: 'review is frozen this week', title: 'Automatic move working → agent-review refused: a task in working' }),
    ]);
  });
});

describe('the outbox (one-shot CLI calls)', () => {
  it('writes a raised notification to $ORANGE_HOME/outbox instead of delivering it, and the deliverer delivers and removes it', async () => {
    const got = { hook: [] as Notification[] };
    box = await sandbox({}, [notifiers(got)]);
    const deliverer = await processOn(box.home, [notifiers(got)]);
    const oneShot = await processOn(box.home, [notifiers(got)], { outbox: true });
    const ref = await taskIn(box, 'working');
    await oneShot.engine.transition(ref, 'stuck', { reason: 'went in circles' });
    await oneShot.notifications.settle();
    expect(got.hook, 'nothing is delivered by the raising process').toEqual([]);
    expect(oneShot.notifications.outboxWrites).toBe(1);
    const [name] = await outboxNames(box.home);
    expect(name).toMatch(/^\d{13}-[0-9A-Za-z]{10}\.json$/);
    const entry = JSON.parse(await readFile(new OrangePaths(box.home).outboxEntryFile(name ?? ''), 'utf8'));
    expect(entry).toEqual({ notification: expect.objectContaining({ event: 'status.changed', to: 'stuck', reason: 'went in circles' }), cwd: process.cwd() });

    expect(await deliverer.notifications.deliverOutbox()).toBe(1);
    expect(got.hook).toEqual([expect.objectContaining({ event: 'status.changed', priority: 'urgent', to: 'stuck', task: expect.objectContaining({ id: ref.id, status: 'stuck' }) })]);
    // Exactly as raised: the same object, key for key (the webhook posts it as its body).
    expect(JSON.stringify(got.hook[0])).toBe(JSON.stringify(entry.notification));
    expect(await outboxNames(box.home)).toEqual([]);
  });

  it('removes a FIFO and a directory dropped into the outbox without reading them, and delivers the entries beside them', async () => {
    const got = { hook: [] as Notification[] };
    box = await sandbox({}, [notifiers(got)]);
    const deliverer = await processOn(box.home, [notifiers(got)]);
    const oneShot = await processOn(box.home, [notifiers(got)], { outbox: true });
    const paths = new OrangePaths(box.home);
    await mkdir(paths.outboxDir, { recursive: true });
    // Any process of the user may drop these; named like entries, so the deliverer looks at them.
    execFileSync('mkfifo', [paths.outboxEntryFile('0000000000001-fifo000000.json')]);
    await mkdir(paths.outboxEntryFile('0000000000002-dir0000000.json'));
    const ref = await taskIn(box, 'working');
    await oneShot.engine.transition(ref, 'stuck', { reason: 'went in circles' });
    await oneShot.notifications.settle();
    expect(await deliverer.notifications.deliverOutbox()).toBe(1);
    expect(got.hook).toEqual([expect.objectContaining({ event: 'status.changed', to: 'stuck' })]);
    expect(await outboxNames(box.home)).toEqual([]);
  });

  it("stages a move's own notification in the outbox after the checks, before the status write: none for a refused move, delivered after a death before the write, no status.changed beside it", async () => {
    const got = { hook: [] as Notification[] };
    const freeze: OrangePlugin = { name: 'freeze', apply: (orange) => orange.hooks.beforeTransition.tap('freeze', (e) => (e.to === 'stuck' ? 'stuck is frozen' : undefined)) };
    box = await sandbox({}, [notifiers(got)]);
    const frozen = await processOn(box.home, [notifiers(got), freeze], { outbox: true });
    const oneShot = await processOn(box.home, [notifiers(got)], { outbox: true });
    const ref = await taskIn(box, 'working');
    const notification = { event: 'plugin.gave_up', priority: 'urgent' as const, title: 'Gave up: a task in working', reason: 'three strikes' };
    await errorOf(frozen.engine.transition(ref, 'stuck', { notification }));
    await frozen.notifications.settle();
    expect(await outboxNames(box.home), 'a refused move stages nothing').toEqual([]);

    // The status write fails (as if the process died there): the notification is already in the outbox.
    const write = vi.spyOn(oneShot.store, 'update').mockImplementationOnce(async () => {
      expect(await outboxNames(box!.home)).toHaveLength(1);
      throw new Error('killed before the status was written');
    });
    await expect(oneShot.engine.transition(ref, 'stuck', { notification })).rejects.toThrow('killed before the status was written');
    write.mockRestore();
    expect((await oneShot.store.read(ref.project, ref.id)).meta.status).toBe('working');
    await oneShot.engine.transition(ref, 'stuck', { notification });
    await oneShot.notifications.settle();
    expect(await box.orange.notifications.deliverOutbox()).toBe(2);
    expect(got.hook.map((n) => [n.event, n.from, n.to, n.task.status, n.reason])).toEqual([
      ['plugin.gave_up', 'working', 'stuck', 'stuck', 'three strikes'],
      ['plugin.gave_up', 'working', 'stuck', 'stuck', 'three strikes'],
    ]);
  });

  it("has a move's status.changed in the outbox before the status is written, so a death during its actions still has it delivered", async () => {
    const got = { hook: [] as Notification[] };
    const inOutbox: string[][] = [];
    const probe: OrangePlugin = {
      name: 'probe',
      apply: (orange) => orange.hooks.actions.for('notify_worker').tapPromise('probe', async () => void inOutbox.push(await outboxNames(box!.home))),
    };
    box = await sandbox({}, [notifiers(got)]);
    const oneShot = await processOn(box.home, [notifiers(got), probe], { outbox: true });
    const ref = await taskIn(box, 'working');
    const write = vi.spyOn(oneShot.store, 'update').mockImplementationOnce(async () => {
      expect(await outboxNames(box!.home), 'staged before the status write').toHaveLength(1);
      throw new Error('killed before the status was written');
    });
    await expect(oneShot.engine.transition(ref, 'stuck', { reason: 'went in circles' })).rejects.toThrow('killed before the status was written');
    write.mockRestore();
    await oneShot.engine.transition(ref, 'stuck', { reason: 'went in circles' });
    expect(inOutbox.map((names) => names.length), 'while the actions run, both entries are already there').toEqual([2]);
    expect(await box.orange.notifications.deliverOutbox()).toBe(2);
    expect(got.hook.map((n) => [n.event, n.priority, n.from, n.to, n.task.status, n.reason])).toEqual([
      ['status.changed', 'urgent', 'working', 'stuck', 'stuck', 'went in circles'],
      ['status.changed', 'urgent', 'working', 'stuck', 'stuck', 'went in circles'],
    ]);
  });

  it('writes nothing when no notifier is routed the priority and nobody taps the notification hook', async () => {
    box = await sandbox({ notifications: { routes: { urgent: ['desk'] } } }, [notifiers({ desk: [] })]);
    const oneShot = await processOn(box.home, [notifiers({ desk: [] })], { outbox: true, config: { notifications: { routes: { urgent: ['desk'] } } } });
    await oneShot.engine.transition(await taskIn(box, 'reviewing'), 'done');
    await oneShot.notifications.settle();
    expect(oneShot.notifications.outboxWrites).toBe(0);
    expect(await outboxNames(box.home)).toEqual([]);
  });

  it('removes an entry after a failed attempt, logged, and goes on with the next; an unreadable one is dropped, logged', async () => {
    const got = { broken: [] as Notification[] };
    box = await sandbox({}, [notifiers(got, { broken: 'throw' })]);
    const outbox = new NotificationOutbox(box.orange.paths);
    const oneShot = await processOn(box.home, [notifiers({ broken: [] })], { outbox: true });
    await oneShot.engine.transition(await taskIn(box, 'working'), 'stuck');
    await oneShot.engine.transition(await taskIn(box, 'reviewing'), 'done');
    await oneShot.notifications.settle();
    // A file that is no notification (written by hand, a disk that lied) is dropped with a log line, not retried forever.
    await writeFile(box.orange.paths.outboxEntryFile(`${Date.now()}-TornTornTo.json`), '{"notification":');
    expect(await outbox.due()).toHaveLength(3);
    expect(await box.orange.notifications.deliverOutbox()).toBe(2);
    expect(got.broken.map((n) => n.to)).toEqual(['stuck', 'done']);
    expect(await outbox.due()).toEqual([]);
    const logged = await logLines(box);
    expect(logged.filter((l) => l.msg === 'notifier failed').map((l) => l.error)).toEqual(['broken is down', 'broken is down']);
    expect(logged).toContainEqual(expect.objectContaining({ level: 'error', msg: 'outbox entry unreadable; removed', entry: expect.stringMatching(/-TornTornTo\.json$/) }));
  });

  it('delivers each entry once when two deliverers race, one at a time', async () => {
    const first = { slow: [] as Notification[] };
    const second = { slow: [] as Notification[] };
    // Each delivery takes a while, so the two deliverers overlap.
    const slow = (into: Notification[]): OrangePlugin => ({
      name: 'slow',
      apply: (orange) =>
        orange.notifications.register({
          name: 'slow',
          async send(n) {
            into.push(n);
            await new Promise((resolve) => setTimeout(resolve, 30));
          },
        }),
    });
    box = await sandbox({}, []);
    const a = await processOn(box.home, [slow(first.slow)]);
    const b = await processOn(box.home, [slow(second.slow)]);
    const oneShot = await processOn(box.home, [notifiers({ slow: [] })], { outbox: true });
    const refs = [];
    for (let i = 0; i < 6; i++) refs.push(await taskIn(box, 'working'));
    for (const ref of refs) await oneShot.engine.transition(ref, 'stuck');
    await oneShot.notifications.settle();
    const [byA, byB] = await Promise.all([a.notifications.deliverOutbox(), b.notifications.deliverOutbox()]);
    const delivered = [...first.slow, ...second.slow].map((n) => n.task.id);
    expect(byA + byB).toBe(6);
    expect(delivered.sort()).toEqual(refs.map((r) => r.id).sort());
    expect(await outboxNames(box.home)).toEqual([]);
  });

  it('is flushed by a monitor pass once an entry has waited OUTBOX_GRACE_MS for its deliverer (killed, or never started)', async () => {
    const got = { desk: [] as Notification[] };
    box = await sandbox({}, [notifiers(got)]);
    const oneShot = await processOn(box.home, [notifiers({ desk: [] })], { outbox: true });
    const ref = await taskIn(box, 'working');
    vi.useFakeTimers({ toFake: ['Date'] });
    await oneShot.engine.transition(ref, 'stuck');
    await oneShot.notifications.settle();
    const monitor = new Monitor(box.orange);
    await monitor.pass();
    await box.orange.notifications.settle();
    expect(got.desk, 'a fresh entry is left to the deliverer started for it').toEqual([]);
    vi.setSystemTime(Date.now() + OUTBOX_GRACE_MS + 1000);
    await monitor.pass();
    await box.orange.notifications.settle();
    expect(got.desk).toEqual([expect.objectContaining({ event: 'status.changed', to: 'stuck', task: expect.objectContaining({ id: ref.id }) })]);
    expect(await outboxNames(box.home)).toEqual([]);
  });
});

describe('the routing of outbox entries', () => {
  /** A monitor's instance on the box's home that loads another instance for a directory's config (the CLI's loader), recording each load. */
  async function monitorProcess(home: string, own: Notification[], loaded: Orange, loads: string[]): Promise<Orange> {
    return Orange.create({ plugins: [recordingPlugin([]), notifiers({ desk: own })] }, {
      paths: new OrangePaths(home),
      orangeFor: async (cwd) => {
        loads.push(cwd);
        return loaded;
      },
    });
  }

  it("routes a leftover entry on a monitor pass by the config of the project it was raised in (its repository or a pool worktree)", async () => {
    const here: Notification[] = [];
    const there: Notification[] = [];
    const loads: string[] = [];
    box = await sandbox({}, []);
    const repo = join(box.home, 'repo');
    const worktree = join(box.orange.paths.workspaceDir('demo', 1), 'src');
    await mkdir(repo, { recursive: true });
    await mkdir(worktree, { recursive: true });
    const monitor = await monitorProcess(box.home, here, await processOn(box.home, [notifiers({ desk: there })]), loads);
    const outbox = new NotificationOutbox(box.orange.paths);
    vi.useFakeTimers({ toFake: ['Date'] });
    await outbox.put({ notification: stuck('a'.repeat(21)), cwd: repo });
    vi.setSystemTime(Date.now() + 1);
    await outbox.put({ notification: stuck('b'.repeat(21)), cwd: worktree });
    vi.setSystemTime(Date.now() + OUTBOX_GRACE_MS + 1000);
    await new Monitor(monitor).pass();
    await monitor.notifications.settle();
    expect(there.map((n) => n.task.id)).toEqual(['a'.repeat(21), 'b'.repeat(21)]);
    expect(here, "not by the monitor's own config").toEqual([]);
    expect(loads).toEqual([repo, worktree]);
    expect(await outboxNames(box.home)).toEqual([]);
  });

  it('never loads the config of a directory outside every registered project: its entry is routed by the own config, and logged', async () => {
    const here: Notification[] = [];
    const loads: string[] = [];
    box = await sandbox({}, []);
    const repo = join(box.home, 'repo');
    await mkdir(repo, { recursive: true });
    const outside = await mkdtemp(join(tmpdir(), 'orange-outside-'));
    try {
      // A link inside the repository that leads out of it counts as where it leads.
      await symlink(outside, join(repo, 'escape'));
      const monitor = await monitorProcess(box.home, here, box.orange, loads);
      const outbox = new NotificationOutbox(box.orange.paths);
      // Written a millisecond apart: names sort in the order they were written.
      const put = async (id: string, cwd: string) => {
        await outbox.put({ notification: stuck(id.repeat(21)), cwd });
        await new Promise((resolve) => setTimeout(resolve, 2));
      };
      await put('c', outside);
      await put('d', join(repo, 'escape'));
      await put('e', join(box.orange.paths.workspacesDir, 'elsewhere--1'));
      expect(await monitor.notifications.deliverOutbox()).toBe(3);
      expect(loads).toEqual([]);
      expect(here.map((n) => n.task.id)).toEqual(['c'.repeat(21), 'd'.repeat(21), 'e'.repeat(21)]);
      const logged = (await logLines(box)).filter((l) => l.msg === 'outbox entry raised outside every registered project; routed by this config');
      expect(logged.map((l) => l.cwd)).toEqual([outside, join(repo, 'escape'), join(box.orange.paths.workspacesDir, 'elsewhere--1')]);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });
});

describe('the outbox flush of a long-lived process', () => {
  it('stops after the entry in flight when the monitor or dashboard quits; the rest stay in the outbox', async () => {
    let release = () => undefined as void;
    const inFlight = new Promise<void>((resolve) => (release = resolve));
    const got: Notification[] = [];
    const held: OrangePlugin = {
      name: 'held',
      apply: (orange) =>
        orange.notifications.register({
          name: 'held',
          async send(n) {
            got.push(n);
            await inFlight;
          },
        }),
    };
    box = await sandbox({}, [held]);
    const oneShot = await processOn(box.home, [notifiers({ held: [] })], { outbox: true });
    vi.useFakeTimers({ toFake: ['Date'] });
    for (let i = 0; i < 3; i++) await oneShot.engine.transition(await taskIn(box, 'working'), 'stuck');
    await oneShot.notifications.settle();
    vi.setSystemTime(Date.now() + OUTBOX_GRACE_MS + 1000);
    box.orange.notifications.flushOutbox();
    await vi.waitFor(() => expect(got).toHaveLength(1));
    box.orange.notifications.stopFlushing();
    release();
    await box.orange.notifications.settle();
    expect(got).toHaveLength(1);
    expect(await outboxNames(box.home)).toHaveLength(2);
  });
});

describe('a failing notifier', () => {
  it('is logged and does not stop the others, and the transition is not affected', async () => {
    const got = { broken: [] as Notification[], fine: [] as Notification[] };
    box = await sandbox({}, [notifiers(got, { broken: 'throw' })]);
    const ref = await taskIn(box, 'working');
    const result = await box.orange.engine.transition(ref, 'stuck');
    expect(result.failedHooks).toEqual([]);
    await box.orange.notifications.settle();
    expect(got.fine).toHaveLength(1);
    expect(await logLines(box)).toContainEqual(expect.objectContaining({ level: 'error', msg: 'notifier failed', notifier: 'broken', error: 'broken is down' }));
    expect((await box.orange.store.read(ref.project, ref.id)).meta).toMatchObject({ status: 'stuck', attention: null });
  });

  it('that hangs delays neither the transition nor delivery past its timeout, and its signal is aborted', async () => {
    const got = { stuckOne: [] as Notification[], fine: [] as Notification[] };
    const signals: Record<string, AbortSignal> = {};
    box = await sandbox({ notifications: { timeoutMs: 1000 } }, [notifiers(got, { stuckOne: 'hang' }, signals)]);
    const ref = await taskIn(box, 'working');
    const started = performance.now();
    await box.orange.engine.transition(ref, 'stuck');
    const transitionMs = performance.now() - started;
    await box.orange.notifications.settle();
    const settledMs = performance.now() - started;
    // The transition never waits for a notifier; delivery ends at the notifier's time limit.
    expect(transitionMs, `transition took ${transitionMs} ms`).toBeLessThan(1000);
    expect(settledMs, `delivery took ${settledMs} ms`).toBeGreaterThanOrEqual(990);
    expect(settledMs, `delivery took ${settledMs} ms`).toBeLessThan(4000);
    expect(got.fine).toHaveLength(1);
    expect(await logLines(box)).toContainEqual(
      expect.objectContaining({ msg: 'notifier failed', notifier: 'stuckOne', error: 'notifier stuckOne did not finish within 1000 ms' }),
    );
    // Told to stop, with why: a notifier that listens lets go of its request.
    expect(signals.stuckOne?.aborted).toBe(true);
    expect(String((signals.stuckOne?.reason as Error | undefined)?.message)).toBe('notifier stuckOne did not finish within 1000 ms');
    expect(signals.fine?.aborted).toBe(false);
  });

  it('a notification hook tap that throws is logged and the notifiers still get it', async () => {
    const got = { fine: [] as Notification[] };
    const clumsy: OrangePlugin = {
      name: 'clumsy',
      apply: (orange) => orange.hooks.notification.tap('clumsy', () => {
        throw new Error('observer crashed');
      }),
    };
    box = await sandbox({}, [notifiers(got), clumsy]);
    const ref = await taskIn(box, 'working');
    await box.orange.engine.transition(ref, 'stuck');
    await box.orange.notifications.settle();
    expect(got.fine).toHaveLength(1);
    expect(await logLines(box)).toContainEqual(expect.objectContaining({ msg: 'notification hook failed', error: 'observer crashed' }));
  });
});

describe('stale tasks', () => {
  const old = new Date(Date.now() - 3_600_000).toISOString();

  it('raises urgent once for a task in an agent status longer than staleAfterMs, again only after it moves', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const got = { all: [] as Notification[] };
    box = await sandbox({ notifications: { staleAfterMs: 60_000 } }, [notifiers(got)]);
    const ref = await taskIn(box, 'working', { body: '## Handoff\n\nDONE: the form\n' });
    const monitor = new Monitor(box.orange);
    expect((await monitor.pass()).stale).toEqual([]);
    vi.setSystemTime(Date.now() + 61_000);
    const fresh = await taskIn(box, 'working');
    expect((await monitor.pass()).stale).toEqual([ref.id]);
    expect((await monitor.pass()).stale, 'once per stay').toEqual([]);
    // It moves on: a new stay, in a status of its own.
    await box.orange.engine.transition(ref, 'agent-review');
    expect((await monitor.pass()).stale).toEqual([]);
    vi.setSystemTime(Date.now() + 61_000);
    expect([...(await monitor.pass()).stale].sort()).toEqual([fresh.id, ref.id].sort());
    await box.orange.notifications.settle();
    const mine = got.all.filter((n) => n.task.id === ref.id);
    expect(mine).toEqual([
      expect.objectContaining({ event: 'task.stale', priority: 'urgent', title: expect.stringMatching(/^In working for 1 min: /) }),
      expect.objectContaining({ event: 'task.stale', priority: 'urgent', title: expect.stringMatching(/^In agent-review for 1 min: /) }),
    ]);
    const history = await box.orange.store.history(ref.project, ref.id);
    expect(history.filter((e) => e.type === 'task.stale').map((e) => e.status)).toEqual(['working', 'agent-review']);
  });

  it('leaves statuses that wait for a person (reviewing, stuck, clarification) alone, unless given a time of their own', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    box = await sandbox({ notifications: { staleAfterMs: 60_000 } }, [notifiers({ all: [] })]);
    for (const status of ['reviewing', 'stuck', 'clarification']) await taskIn(box, status);
    const working = await taskIn(box, 'working');
    vi.setSystemTime(Date.now() + 3_600_000);
    expect((await new Monitor(box.orange).pass()).stale).toEqual([working.id]);

    const perStatus = await sandbox({ notifications: { staleAfterMs: { reviewing: 600_000 } } }, [notifiers({ all: [] })]);
    try {
      const review = await taskIn(perStatus, 'reviewing');
      await taskIn(perStatus, 'working');
      await taskIn(perStatus, 'stuck');
      vi.setSystemTime(Date.now() + 300_000);
      expect((await new Monitor(perStatus.orange).pass()).stale, 'not yet 10 min').toEqual([]);
      vi.setSystemTime(Date.now() + 301_000);
      expect((await new Monitor(perStatus.orange).pass()).stale).toEqual([review.id]);
    } finally {
      await perStatus.orange.notifications.settle();
      await perStatus.cleanup();
    }
  });

  it('refuses a staleAfterMs that is neither a time nor a record of times', async () => {
    const error = await errorOf(sandbox({ notifications: { staleAfterMs: { reviewing: -1 } } }));
    expect(error.code).toBe('E_CONFIG');
    expect(error.message).toContain('notifications.staleAfterMs');
  });

  it('is not looked for without staleAfterMs', async () => {
    box = await sandbox({}, []);
    await taskIn(box, 'working', { meta: { created_at: old, updated_at: old } });
    expect((await new Monitor(box.orange).pass()).stale).toEqual([]);
  });
});
