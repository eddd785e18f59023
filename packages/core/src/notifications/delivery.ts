import { realpath } from 'node:fs/promises';
import { isAbsolute, relative, sep } from 'node:path';
import { NotificationOutbox, type OutboxEntry } from './outbox.js';
import type { Orange, OutboxDeliveryOptions } from '../plugin/index.js';
import type { OrangePaths } from '../store/index.js';
import { ProjectStore } from '../store/index.js';

/** Where the outbox's entries find the config that routes them. */
export interface OutboxRouting {
  /**
   * The delivering process's own instance, asked for only when an entry needs it (the deliverer
   * loads its config inside the delivery lock, and not at all when another process holds it).
   */
  readonly own: () => Promise<Orange>;
  /** An instance on the config found from `cwd` (the CLI's loader); without it, `own` routes every entry. */
  readonly load?: (cwd: string) => Promise<Orange>;
  /** The directory whose entries `own` routes; default this process's. */
  readonly here?: string;
}

/**
 * Delivers the outbox, for the detached deliverer and for the monitor's and the dashboard's
 * flush alike: each entry is routed by the config of the directory it was raised in, when that
 * directory is a registered project's repository or one of its pool's worktrees. An entry is a
 * file under `$ORANGE_HOME` that any process of the user (an agent) could write: a directory
 * outside every project is never loaded from, and its entry is routed by the own config (logged).
 * Instances are kept per directory for one `deliver` run: a long-lived monitor or dashboard holds
 * no other project's Orange between flushes, and sees that project's config as it is now.
 */
export class OutboxDeliverer {
  private readonly outbox: NotificationOutbox;
  private readonly here: string;
  private readonly instances = new Map<string, Promise<Orange>>();

  constructor(
    private readonly paths: OrangePaths,
    private readonly routing: OutboxRouting,
  ) {
    this.outbox = new NotificationOutbox(paths);
    this.here = routing.here ?? process.cwd();
  }

  /**
   * Delivers the outbox until it is empty, oldest entry first, removing each after its attempt
   * (delivered or failed: logged). Only one process delivers at a time (the outbox's lock): when
   * another holds it, this returns at once, leaving the entries to it. Returns how many it delivered.
   */
  async deliver(options: OutboxDeliveryOptions = {}): Promise<number> {
    try {
      return await this.deliverAll(options);
    } finally {
      this.instances.clear();
    }
  }

  private async deliverAll(options: OutboxDeliveryOptions): Promise<number> {
    const tried = new Set<string>();
    const stopped = () => options.signal?.aborted === true;
    let delivered = 0;
    for (;;) {
      const due = (await this.outbox.due(options.minAgeMs ?? 0)).filter((name) => !tried.has(name));
      if (due.length === 0 || stopped()) return delivered;
      // Due entries are looked at again after the lock is released: one written while this process
      // held it, whose own deliverer found the lock held and left, is this process's to deliver.
      const ran = await this.outbox.whileDelivering(async () => {
        for (const name of due) {
          if (stopped()) return;
          tried.add(name);
          if (await this.deliverEntry(name)) delivered++;
        }
      });
      if (ran === null) return delivered;
    }
  }

  /** Delivers one entry and removes it; false when it was gone or unreadable (removed, logged). */
  private async deliverEntry(name: string): Promise<boolean> {
    const { entry, problem } = await this.outbox.read(name);
    if (entry) await (await this.instanceFor(entry)).notifications.deliver(entry.notification);
    else if (problem !== null) (await this.routing.own()).log.child('notifications').error('outbox entry unreadable; removed', { entry: name, error: problem });
    await this.outbox.remove(name);
    return entry !== null;
  }

  /** The instance whose config routes `entry`: its directory's, when that is a project's; else the own one. */
  private async instanceFor(entry: OutboxEntry): Promise<Orange> {
    const { load } = this.routing;
    if (entry.cwd === this.here || load === undefined) return this.routing.own();
    let instance = this.instances.get(entry.cwd);
    if (!instance) {
      instance = this.loadFor(entry.cwd, load);
      this.instances.set(entry.cwd, instance);
    }
    return instance;
  }

  private async loadFor(cwd: string, load: (cwd: string) => Promise<Orange>): Promise<Orange> {
    const own = () => this.routing.own();
    if (!(await this.inProject(cwd))) {
      (await own()).log.child('notifications').warn('outbox entry raised outside every registered project; routed by this config', { cwd });
      return own();
    }
    try {
      return await load(cwd);
    } catch (error) {
      (await own()).log.child('notifications').warn('config of an outbox entry did not load; delivering with this one', { cwd, error: error instanceof Error ? error.message : String(error) });
      return own();
    }
  }

  /** True when `cwd` (symbolic links resolved) is inside a registered project's repository or one of its pool's worktrees. */
  private async inProject(cwd: string): Promise<boolean> {
    const real = await realpath(cwd).catch(() => null);
    if (real === null) return false;
    const projects = await new ProjectStore(this.paths).list().catch(() => []);
    const workspaces = await realpath(this.paths.workspacesDir).catch(() => this.paths.workspacesDir);
    for (const project of projects) {
      const repo = await realpath(project.path).catch(() => null);
      if (repo !== null && inside(real, repo)) return true;
    }
    // A pool worktree: `workspaces/<project>--<n>` of a registered project.
    if (!inside(real, workspaces)) return false;
    const match = /^(.+)--\d+$/.exec(relative(workspaces, real).split(sep)[0] ?? '');
    return match !== null && projects.some((p) => p.name === match[1]);
  }
}

/** True when `path` is `dir` or below it (both real paths). */
function inside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}
