import { lstat, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { OrangeError } from '../errors/index.js';
import { TASK_META_ORDER, type Task, type TaskMeta } from '../task/index.js';
import { removeStaleTemps, writeTemp } from './atomic.js';
import { mergeLines } from './line-merge.js';
import { assertProjectName, assertTaskId } from './names.js';
import type { OrangePaths } from './paths.js';
import { openRegularFile, readAll, readRegularFileSync, type OpenedFile } from './regular-file.js';
import { parseFrontMatter, serializeTask, splitTaskFile, taskMetaFrom } from './task-file.js';
import { moveLegacyTaskFile } from './task-layout.js';
import { readTaskState, writeTaskState } from './task-state-file.js';
import { reconcile, stateAfterRender, type FieldMismatch, type TaskState } from './task-state.js';

/** TASK.md may not be larger than this; a bigger file (or a link to /dev/zero) is refused unread. */
export const TASK_FILE_MAX_BYTES = 8 * 1024 * 1024;
/** How long a write keeps trying while an editor keeps saving TASK.md under it. */
const WRITE_PATIENCE_MS = 15_000;
/** TASK.md saved by someone else this recently means an editor is busy with it. */
const BUSY_MS = 1000;
/** How long the file that was read is watched after a rename while an editor is busy. */
const BUSY_LINGER_MS = 100;
/** How long a write that put back an editor's edits watches for a save made from a copy without them. */
const RESTORE_WATCH_MS = 250;

/** TASK.md as read once it parsed: its file (kept open), its front matter fields and its body. */
export interface Settled {
  readonly file: OpenedFile | null;
  /** Front matter fields as TASK.md has them, null when TASK.md is missing. */
  readonly fields: TaskMeta | null;
  readonly body: string;
  /** The known fields TASK.md's front matter does not have at all (deleted by hand). */
  readonly absent?: readonly string[];
}

/** A task with what its files say against each other. */
export interface TaskInspection {
  readonly task: Task;
  /** Sealed fields whose TASK.md value is not the value of record (empty when none). */
  readonly tampered: readonly FieldMismatch[];
  /** True when the task has a state file (tasks written by older versions have only TASK.md). */
  readonly hasState: boolean;
}

/** A change to a task, computed from its current fields and body (re-run if an editor interferes). */
export type TaskChange = (current: Task) => Task;

/**
 * One task's two files and the protocol that keeps both sides' writes: `state.json` holds the
 * engine's fields of record and is written only by Orange, atomically; `TASK.md` is where agents
 * work, rendered from the state, its body theirs. Agents edit TASK.md with their own tools and no
 * lock, so a write here never trusts what it read: it renames the new file in, then looks at the
 * file it had read; if an editor wrote into it meanwhile, that edit is taken over and the write is
 * done again. An editor that saves an old copy of the front matter back cannot undo the engine's
 * fields, which live in the state. Callers (the task store) hold the task lock for writes.
 */
export class TaskFiles {
  constructor(
    private readonly paths: OrangePaths,
    private readonly settleMs: number,
  ) {}

  async readState(project: string, id: string): Promise<TaskState | null> {
    return readTaskState(this.paths.taskStateFile(project, id), this.paths.taskDir(project, id), `task ${id}: state.json`);
  }

  /**
   * Opens TASK.md and reads it until it parses: an editor rewriting it in place leaves it empty or
   * half-written for a moment, which is "being written", not an error, for up to `settleMs`.
   */
  async settle(project: string, id: string, state: TaskState | null): Promise<Settled> {
    const path = this.paths.taskFile(project, id);
    const deadline = Date.now() + this.settleMs;
    let triedLegacy = false;
    for (let pause = 2; ; pause = Math.min(pause * 2, 50)) {
      const file = await openRegularFile(path, { maxBytes: TASK_FILE_MAX_BYTES, within: this.paths.agentDir(project, id), what: `task ${id}: TASK.md` });
      if (file === null && !triedLegacy) {
        // A task from before TASK.md had its own folder is moved there on its first read.
        triedLegacy = true;
        if (await moveLegacyTaskFile(this.paths, project, id)) continue;
      }
      if (file === null) {
        // A state with no TASK.md: the file was deleted, or an editor is between unlink and create.
        if (state !== null) return { file: null, fields: null, body: '' };
        throw new OrangeError('E_TASK_NOT_FOUND', `no task ${id} in project ${project}`);
      } else {
        try {
          const parsed = this.parse(file.text, path, file.mtimeMs);
          return { file, ...parsed };
        } catch (error) {
          await file.handle.close();
          if (!beingWritten(file.text) || Date.now() >= deadline) throw error;
        }
      }
      await sleep(pause);
    }
  }

  parse(text: string, path: string, mtimeMs: number): { fields: TaskMeta; body: string; absent: readonly string[] } {
    const { frontMatter, body } = splitTaskFile(text, path);
    const data = parseFrontMatter(frontMatter, path);
    // Fields a hand edit deleted: against the state they take the values of record, not defaults.
    const absent = TASK_META_ORDER.filter((key) => !Object.hasOwn(data, key));
    return { fields: taskMetaFrom(data, path, { time: new Date(mtimeMs).toISOString() }), body, absent };
  }

  /** The task as its files say, with TASK.md's front matter reconciled against the state. */
  view(project: string, id: string, state: TaskState | null, settled: Settled, options: { acceptForeign?: boolean } = {}): TaskInspection {
    const fields = settled.fields;
    if (fields && !options.acceptForeign && (fields.id !== id || fields.project !== project)) {
      throw new OrangeError(
        'E_TAMPERED',
        `task ${id}: TASK.md names ${fields.project}/${fields.id}, not ${project}/${id} (edited by hand?); run: orange task repair ${id}`,
        { field: fields.id !== id ? 'id' : 'project' },
      );
    }
    if (state === null) {
      if (fields === null) throw new OrangeError('E_TASK_NOT_FOUND', `no task ${id} in project ${project}`);
      const foreign: FieldMismatch[] = [];
      if (fields.id !== id) foreign.push({ field: 'id', expected: id, found: fields.id });
      if (fields.project !== project) foreign.push({ field: 'project', expected: project, found: fields.project });
      return { task: { meta: { ...fields, id, project }, body: settled.body }, tampered: foreign, hasState: false };
    }
    if (fields === null) return { task: { meta: state.meta, body: '' }, tampered: [], hasState: true };
    const record = state.meta as Record<string, unknown>;
    const filled = { ...fields, ...Object.fromEntries((settled.absent ?? []).map((key) => [key, record[key] ?? null])) } as TaskMeta;
    const { meta, tampered } = reconcile(state, filled);
    return { task: { meta, body: settled.body }, tampered, hasState: true };
  }

  /**
   * Writes a change so that neither it nor an editor's concurrent save of TASK.md is lost (see the
   * class comment). The state (fields of record) is written first; TASK.md is then replaced only
   * while it is still the file that was read, and the file that was read is checked afterwards.
   */
  async change(project: string, id: string, decide: TaskChange, options: { acceptForeign?: boolean } = {}): Promise<Task> {
    assertProjectName(project);
    assertTaskId(id);
    const path = this.paths.taskFile(project, id);
    // One stamp for every round: a retried rendering must carry the same sealed fields.
    const stamp = new Date().toISOString();
    const previous = await this.readState(project, id);
    let state = previous;
    let guard = await this.settle(project, id, state);
    let source: Settled = guard;
    try {
      const started = Date.now();
      let renamed = false;
      for (let round = 0; ; round++) {
        const waited = Date.now() - started;
        if (!renamed && waited > WRITE_PATIENCE_MS) {
          // Nothing was renamed yet: give up cleanly, leaving the state as it was.
          if (state !== previous) await this.restoreState(project, id, previous);
          throw new OrangeError('E_LOCKED', `task ${id}: TASK.md kept changing while it was being written (an editor saving it without pause?); try again`);
        }
        // The body to write holds edits TASK.md does not have now (taken back from a file an editor saved into).
        const restoring = source.body !== guard.body;
        const current = this.view(project, id, previous, source, options).task;
        const decided = decide(current);
        const next: Task = { meta: { ...decided.meta, updated_at: stamp }, body: decided.body };
        // Edits taken back from an old file must reach TASK.md: after long enough, they are written over anything.
        const outcome = await this.render(project, id, previous, state, next, guard.file, !renamed || waited < 2 * WRITE_PATIENCE_MS);
        state = outcome.state;
        if (outcome.kind !== 'written') {
          // An editor saved TASK.md after it was read (in place, or by replacing it): start again
          // from its file, keeping what is already pending on top of the file that was read.
          const fresh = await this.settle(project, id, state);
          await guard.file?.handle.close();
          source = { file: fresh.file, fields: fresh.fields, body: mergeLines(guard.body, source.body, fresh.body) };
          guard = fresh;
          // No pause: right after an editor's save is the best moment to write before its next one.
          continue;
        }
        const written = outcome.text;
        renamed = true;
        const busy = guard.file !== null && Date.now() - guard.file.mtimeMs < BUSY_MS && !(previous?.rendered && sameFile(guard.file, previous.rendered));
        const after = guard.file ? await this.settledContent(guard.file, path, busy ? BUSY_LINGER_MS : 0) : null;
        if (after === null || after === guard.file?.text) {
          // Edits that were missing from TASK.md were just put back. An editor that read it while they
          // were missing may still save its copy over them: watch the new file briefly for that.
          const late = restoring ? await this.watchForSave(path, written) : null;
          const merged = late === null ? null : mergeLines(guard.body, source.body, late.body);
          if (late === null || merged === late.body) {
            // Nothing missing: the save was made from a copy that had the edits put back.
            await late?.file?.handle.close();
            return next;
          }
          await guard.file?.handle.close();
          source = { file: late.file, fields: late.fields, body: merged ?? late.body };
          guard = late;
          continue;
        }
        // An editor wrote into the file that was read, around the rename: its edit must be kept, so
        // the change is made again on top of it, merged with whatever was written into the new file.
        const fresh = await this.settle(project, id, state);
        await guard.file?.handle.close();
        const edited = this.parse(after, path, Date.now());
        // The save into the old file was made from what that file held (guard); what is in TASK.md
        // now was made from what was just written. Each is merged against its own base.
        const body = mergeLines(next.body, mergeLines(guard.body, edited.body, next.body), fresh.body);
        guard = fresh;
        source = { file: fresh.file, fields: fresh.file?.text === written ? edited.fields : fresh.fields, body };
        // A short random pause keeps two writers (or a writer and a busy editor) out of lock-step.
        await sleep(Math.random() * Math.min(round + 1, 10));
      }
    } finally {
      await guard.file?.handle.close();
    }
  }

  /**
   * Renders `task` into the state and TASK.md. The state is written when its fields changed (the
   * first round; a retry renders the same fields over a newer body). Returns 'replaced' (nothing
   * renamed) when TASK.md is no longer the inode `read` (or appeared while it was missing).
   */
  async render(
    project: string,
    id: string,
    previous: TaskState | null,
    written: TaskState | null,
    task: Task,
    read: OpenedFile | null,
    precheck: boolean,
  ): Promise<{ kind: 'written'; state: TaskState; text: string } | { kind: 'replaced' | 'edited'; state: TaskState }> {
    const path = this.paths.taskFile(project, id);
    if (written === previous) await removeStaleTemps(dirname(path));
    const text = serializeTask(task);
    // No fsync: TASK.md's fields of record are in the state (synced); its body is the agents'.
    // Backdated: the identity kept as `rendered` must differ from any editor's save after it.
    const temp = await writeTemp(path, text, { sync: false, backdate: true });
    try {
      let state = written;
      if (state === null || state === previous || !sameFields(state.meta, task.meta)) {
        state = stateAfterRender(previous, task.meta, temp.stat);
        await writeTaskState(this.paths.taskStateFile(project, id), state);
      }
      const now = await lstat(path).catch(() => null);
      if ((now?.ino ?? null) !== (read?.ino ?? null)) {
        await rm(temp.path, { force: true });
        return { kind: 'replaced', state };
      }
      // Written into since it was read: no rename over it; start over from the edit. (A save that
      // lands between this check and the rename is taken back by the check after it, see change.)
      if (read && precheck && (await readAll(read.handle, TASK_FILE_MAX_BYTES, path)) !== read.text) {
        await rm(temp.path, { force: true });
        return { kind: 'edited', state };
      }
      await rename(temp.path, path);
      return { kind: 'written', state, text };
    } catch (error) {
      await rm(temp.path, { force: true });
      throw error;
    }
  }

  /** Puts back the state a write that gave up had written (or removes it, for a task that had none). */
  async restoreState(project: string, id: string, previous: TaskState | null): Promise<void> {
    const file = this.paths.taskStateFile(project, id);
    if (previous === null) await rm(file, { force: true });
    else await writeTaskState(file, previous);
  }

  /**
   * Watches TASK.md for RESTORE_WATCH_MS after a write that put back edits: returns the file if an
   * editor saved over it meanwhile, null if it stayed as written.
   */
  async watchForSave(path: string, written: string): Promise<Settled | null> {
    const deadline = Date.now() + RESTORE_WATCH_MS;
    while (Date.now() < deadline) {
      await sleep(2);
      const file = await openRegularFile(path, { maxBytes: TASK_FILE_MAX_BYTES, within: dirname(path), what: path }).catch(() => null);
      if (file === null) continue;
      if (file.text === written) {
        await file.handle.close();
        continue;
      }
      try {
        return { file, ...this.parse(file.text, path, file.mtimeMs) };
      } catch {
        // Being written: look again.
        await file.handle.close();
      }
    }
    return null;
  }

  /**
   * The content of the file that was read, looked at again after the rename. An editor may be
   * writing into it right now: a change is taken once it parses and holds still for a moment (a
   * large save lands a page at a time). When the file was saved by someone else just before (an
   * editor is busy), it is watched for `lingerMs` so that a save stalled in the middle still counts.
   * Returns null for a save that never parses.
   */
  async settledContent(file: OpenedFile, path: string, lingerMs: number): Promise<string | null> {
    const start = Date.now();
    let last = await readAll(file.handle, TASK_FILE_MAX_BYTES, path);
    for (;;) {
      if (last === file.text && Date.now() - start >= lingerMs) return last;
      await sleep(5);
      const again = await readAll(file.handle, TASK_FILE_MAX_BYTES, path);
      if (again !== file.text && again === last) {
        try {
          this.parse(again, path, Date.now());
          return again;
        } catch {
          // Truncated and not yet rewritten, or garbage: an unparseable save cannot be merged.
          if (!beingWritten(again) || Date.now() - start >= this.settleMs) return null;
        }
      }
      if (again !== file.text && Date.now() - start >= this.settleMs) return null;
      last = again;
    }
  }

  /**
   * `inspect` (foreign files accepted) from one synchronous read of TASK.md, as a rebuilt index
   * needs it for thousands of tasks; null when TASK.md does not parse, so that `inspect` waits for
   * an editor that is rewriting it, or reports the error.
   */
  viewAtOnce(project: string, id: string, state: TaskState | null): TaskInspection | null {
    const path = this.paths.taskFile(project, id);
    // Null also for a TASK.md still at its old place: `inspect` (async) moves it.
    const file = readRegularFileSync(path, { maxBytes: TASK_FILE_MAX_BYTES, within: this.paths.agentDir(project, id), what: `task ${id}: TASK.md` });
    if (file === null) return null;
    let parsed: { fields: TaskMeta; body: string };
    try {
      parsed = this.parse(file.text, path, file.mtimeMs);
    } catch {
      return null;
    }
    return this.view(project, id, state, { file: null, ...parsed }, { acceptForeign: true });
  }
}

/**
 * True when TASK.md text looks like a file caught between an editor's truncate and its write (empty,
 * or cut before the closing `---`): worth reading again. A whole but broken file is an error at once.
 */
function beingWritten(text: string): boolean {
  if (text.length < 3) return '---'.startsWith(text);
  return text.startsWith('---') && !/\r?\n---[ \t]*(\r?\n|$)/.test(text.slice(3));
}

function sameFields(a: TaskMeta, b: TaskMeta): boolean {
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(x), ...Object.keys(y)]);
  return [...keys].every((k) => x[k] === y[k]);
}

export function sameFile(stat: { ino: number; size: number; mtimeMs: number } | undefined, expected: { ino: number; size: number; mtimeMs: number }): boolean {
  return stat !== undefined && stat.ino === expected.ino && stat.size === expected.size && stat.mtimeMs === expected.mtimeMs;
}
