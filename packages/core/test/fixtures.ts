import { spawnSync } from 'node:child_process';
import { readdirSync, readlinkSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { expect, type TestContext } from 'vitest';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  OrangeError,
  newTaskId,
  newTaskMeta,
  Orange,
  OrangePaths,
  pluginActions,
  setSection,
  type OrangePlugin,
  type TaskMeta,
  type TaskRef,
} from '../src/index.js';

/** Every action the built-in workflows name beyond the core's, each recorded as it runs. */
export const NOOP_ACTIONS = pluginActions();

export interface RecordingOptions {
  /**
   * Also record `increment_review_round` (the core plugin provides it; this tap runs after the
   * core's, so the recorded order is the order the engine ran the actions in).
   */
  readonly recordCore?: boolean;
}

export function recordingPlugin(calls: string[], options: RecordingOptions = {}): OrangePlugin {
  return {
    name: 'recording',
    apply(orange) {
      for (const action of NOOP_ACTIONS) {
        orange.hooks.actions.for(action).tapPromise('recording', async (ctx) => {
          calls.push(action);
          if (action === 'spawn_agent') await ctx.update({ worker_spawn: 'w1' });
          if (action === 'spawn_reviewer') await ctx.update({ reviewer_spawn: `r${ctx.task.meta.review_round}` });
        });
      }
      if (options.recordCore) {
        orange.hooks.actions.for('increment_review_round').tapPromise('recording', async () => {
          calls.push('increment_review_round');
        });
      }
    },
  };
}

export interface Sandbox {
  home: string;
  orange: Orange;
  calls: string[];
  cleanup(): Promise<void>;
}

/** A temp ORANGE_HOME with one registered project and recording no-op actions. */
export async function sandbox(
  config: Record<string, unknown> = {},
  extra: OrangePlugin[] = [],
  options: RecordingOptions = {},
): Promise<Sandbox> {
  const home = await mkdtemp(join(tmpdir(), 'orange-core-'));
  const cleanup = () => rm(home, { recursive: true, force: true });
  const calls: string[] = [];
  try {
    const orange = await Orange.create(
      { ...config, plugins: [recordingPlugin(calls, options), ...extra] },
      { paths: new OrangePaths(home) },
    );
    await orange.projects.add({ name: 'demo', path: join(home, 'repo'), default_branch: 'main' });
    return { home, orange, calls, cleanup };
  } catch (error) {
    // A config the test expects refused leaves no home behind.
    await cleanup();
    throw error;
  }
}

export interface TaskSetup {
  readonly body?: string;
  readonly meta?: Partial<TaskMeta>;
}

/**
 * Writes a task directly in `status` (TASK.md + a `task.created` ledger entry that agrees),
 * bypassing creation rules, so any state of a workflow can be the starting point of a test.
 */
export async function taskIn(box: Sandbox, status: string, setup: TaskSetup = {}): Promise<TaskRef> {
  const id = newTaskId();
  const meta = newTaskMeta({ id, project: 'demo', branch: `orange-tasks/${id}`, status, summary: `a task in ${status}`, ...setup.meta });
  await box.orange.store.create({ meta, body: setup.body ?? '' });
  return { project: 'demo', id };
}

/** Replaces one body section of a task's TASK.md, as an agent editing the file would. */
export async function editSection(box: Sandbox, ref: TaskRef, section: string, content: string): Promise<void> {
  const file = box.orange.paths.taskFile(ref.project, ref.id);
  await writeFile(file, setSection(await readFile(file, 'utf8'), section, content));
}

/** The bytes of TASK.md, state.json and history.jsonl, to prove a refusal changed nothing. */
export async function filesOf(box: Sandbox, ref: TaskRef): Promise<{ task: string; state: string | null; history: string }> {
  return {
    task: await readFile(box.orange.paths.taskFile(ref.project, ref.id), 'utf8'),
    state: await readFile(box.orange.paths.taskStateFile(ref.project, ref.id), 'utf8').catch(() => null),
    history: await readFile(box.orange.paths.historyFile(ref.project, ref.id), 'utf8'),
  };
}

/** The rejection of `promise`, which must be an OrangeError. */
export async function errorOf(promise: Promise<unknown>): Promise<OrangeError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OrangeError);
  return error as OrangeError;
}

/** The records of `$ORANGE_HOME/orange.log` with message `msg`, fields and all (JSON lines, written synchronously). */
export async function logRecords(box: Sandbox, msg: string): Promise<Array<Record<string, unknown>>> {
  const text = await readFile(box.orange.paths.logFile, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((record) => record.msg === msg);
}

/** The file descriptors this process holds open on `path` (Linux: /proc/self/fd). */
export function descriptorsOn(path: string): string[] {
  const open: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`) === path) open.push(fd);
    } catch {
      // The descriptor readdir itself used, closed meanwhile.
    }
  }
  return open;
}

/** A plugin failing `action` with `error` before any other tap of it (the recording one included) runs. */
export function failingAction(action: string, error: Error): OrangePlugin {
  return {
    name: `failing-${action}`,
    apply: (orange) =>
      orange.hooks.actions.for(action).tapPromise({ name: `failing-${action}`, stage: -10 }, async () => {
        throw error;
      }),
  };
}

// The next two are @orange/test-support's (cannot-run-here.ts), which the core's tests do not load
// (docs/testing.md): they run from the core's sources, and from a copy in a mutation run.

/** User nobody: how a test running as root (CI's user) checks what root's rights would hide. */
export const NOBODY = { uid: 65534, gid: 65534 } as const;

/**
 * Ends a test that cannot run on this machine: skipped, saying why — except in CI (`CI` set), where
 * a test that cannot run fails, saying why (docs/testing.md: nothing skips silently in CI).
 */
export function cannotRunHere(context: TestContext, why: string): never {
  if (process.env.CI) throw new Error(`CI: this test must run, but ${why}`);
  console.warn(`skipped "${context.task.name}": ${why}`);
  return context.skip(why);
}

/**
 * Null when user nobody can read `file`, else why not: code run as nobody needs the repository, and
 * a clone in a folder only its owner may enter (as `mktemp -d` makes them) is out of its reach.
 */
export function nobodyCannotRead(file: string): string | null {
  const probe = spawnSync(process.execPath, ['-e', 'require("node:fs").accessSync(process.argv[1], 4)', file], { ...NOBODY, cwd: '/', encoding: 'utf8' });
  if (probe.status === 0) return null;
  const reason = /\b(E[A-Z]+):/.exec(probe.stderr)?.[1] ?? probe.error?.message ?? `exit ${probe.status}`;
  return `user nobody cannot read ${file} (${reason}): a folder above it is closed to other users`;
}
