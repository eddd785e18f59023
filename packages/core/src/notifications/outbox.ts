import { readdir, rm } from 'node:fs/promises';
import { z } from 'zod';
import { isOrangeError } from '../errors/index.js';
import type { Notification } from '../plugin/index.js';
import { openRegularFile, writeFileAtomic } from '../store/index.js';
import { withLock } from '../store/index.js';
import { newOutboxId } from '../store/index.js';
import type { OrangePaths } from '../store/index.js';

/** A notification waiting in the outbox, with the directory of the process that raised it (whose config routes it). */
export interface OutboxEntry {
  readonly notification: Notification;
  readonly cwd: string;
}

const ENTRY_NAME = /^(\d{13})-[0-9A-Za-z]{10}\.json$/;

// Key order is the order notifiers (the webhook's body) see: the same as `Notifications.build`.
const NotificationSchema = z.object({
  event: z.string().min(1),
  priority: z.enum(['urgent', 'action', 'warning', 'info']),
  title: z.string(),
  reason: z.string().nullable(),
  task: z.object({
    id: z.string(),
    project: z.string(),
    branch: z.string(),
    summary: z.string(),
    status: z.string(),
    pr_url: z.string().nullable(),
    attach: z.string(),
  }),
  from: z.string().nullable(),
  to: z.string().nullable(),
  timestamp: z.string(),
});

const EntrySchema = z.object({ notification: NotificationSchema, cwd: z.string() });

/**
 * `$ORANGE_HOME/outbox/`: one file per notification raised by a one-shot CLI call, written
 * atomically and removed once delivered (or finally failed). One process at a time delivers it,
 * holding the outbox's delivery lock; a holder that was killed leaves a lock taken over after 5 s.
 */
/** An entry is one notification: a larger file is not one (and is not read). */
const ENTRY_MAX_BYTES = 1024 * 1024;

export class NotificationOutbox {
  constructor(private readonly paths: OrangePaths) {}

  /** Writes one entry (temp file + rename); returns its name. Names sort in the order they were written. */
  async put(entry: OutboxEntry): Promise<string> {
    const name = `${String(Date.now()).padStart(13, '0')}-${newOutboxId()}.json`;
    await writeFileAtomic(this.paths.outboxEntryFile(name), `${JSON.stringify(entry)}\n`);
    return name;
  }

  /** Names of the entries written at least `minAgeMs` ago, oldest first. */
  async due(minAgeMs = 0): Promise<string[]> {
    const names = await readdir(this.paths.outboxDir).catch(() => [] as string[]);
    const before = Date.now() - minAgeMs;
    return names.filter((name) => Number(ENTRY_NAME.exec(name)?.[1] ?? Number.POSITIVE_INFINITY) <= before).sort();
  }

  /** One entry; null when it is gone (delivered meanwhile) or not a notification (`problem` says why). */
  async read(name: string): Promise<{ entry: OutboxEntry | null; problem: string | null }> {
    // Only a regular file is read: any process of the user can drop a FIFO (which would block the
    // read for ever) or a directory into the outbox.
    const opened = await openRegularFile(this.paths.outboxEntryFile(name), { maxBytes: ENTRY_MAX_BYTES, within: this.paths.outboxDir, what: `outbox entry ${name}` }).catch(
      (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
    );
    if (opened === null) return { entry: null, problem: null };
    if (opened instanceof Error) return { entry: null, problem: opened.message };
    await opened.handle.close();
    const text = opened.text;
    try {
      const parsed = EntrySchema.safeParse(JSON.parse(text));
      return parsed.success ? { entry: parsed.data, problem: null } : { entry: null, problem: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') };
    } catch (error) {
      return { entry: null, problem: error instanceof Error ? error.message : String(error) };
    }
  }

  async remove(name: string): Promise<void> {
    // Recursive: what was dropped there may be a directory (a link is removed, never followed).
    await rm(this.paths.outboxEntryFile(name), { force: true, recursive: true });
  }

  /** Runs `fn` holding the delivery lock; null (without running it) when another process holds it. */
  async whileDelivering<T>(fn: () => Promise<T>): Promise<T | null> {
    try {
      return await withLock(this.paths.outboxDeliveryLock, 'the notification outbox', fn, { waitMs: 0 });
    } catch (error) {
      if (isOrangeError(error) && error.code === 'E_LOCKED') return null;
      throw error;
    }
  }
}
