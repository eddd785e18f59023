import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Orange, OrangePaths, type Actor, isOrangeError, type HeadlessResult, type Notification, type NotificationDelivery, type OrangePlugin, type TaskMeta, type TaskRef } from '@orange/core';
import { recordingActions, tempDir } from '@orange/test-support';
import { pipeline } from '../src/pipeline.js';
import type { PipelineOptions } from '../src/options.js';

/** What the stand-in harness's n-th headless run of a phase reports (a missing entry: ok, $0.01). */
export type Plan = Record<string, Array<Partial<Pick<HeadlessResult, 'ok' | 'output' | 'costUsd'>> & { data?: Record<string, unknown>; during?: () => void }>>;

export interface PipelineBox {
  readonly orange: Orange;
  readonly home: string;
  /** Each action run by a stand-in (`spawn_agent`, `release_workspace`, …), in order. */
  readonly actions: string[];
  /** The harness of each `spawn_agent` (the driver's is `pipeline-driver`). */
  readonly spawned: string[];
  /** Each headless run, as `phase@tier`. */
  readonly runs: string[];
  /** Every notification the recording notifier was sent. */
  readonly notified: Notification[];
  /** Each headless run's result file: where it was to be written, and the text the harness was given from it. */
  readonly resultFiles: Array<{ readonly path: string; readonly text: string | null }>;
  /** A new pipeline task in project `demo`, created without starting it. */
  task(summary?: string): Promise<TaskRef>;
  /** A new task moved to `executing`, routed to the one phase `fix` at tier `small`, as the driver would. */
  executing(): Promise<TaskRef>;
  /** The actions `step` ran, in order. */
  ran(step: () => Promise<unknown>): Promise<string[]>;
  /** Writes frontmatter fields as the driver would (under the lock). */
  set(ref: TaskRef, patch: Partial<TaskMeta>): Promise<void>;
  /** A move by Orange (the driver), or by `actor` (a person's resume, cancel, clarify). */
  to(ref: TaskRef, status: string, reason?: string, actor?: Actor): ReturnType<Orange['engine']['transition']>;
  /** The refusal of a transition as `CODE: message`. */
  refusal(ref: TaskRef, status: string, actor?: Actor): Promise<string>;
  meta(ref: TaskRef): Promise<TaskMeta>;
  cleanup(): Promise<void>;
}

/**
 * Orange with the pipeline plugin, stand-ins for every runtime and workspace action (recorded,
 * doing nothing), a headless harness `h` (tiers small, big) whose runs really start `true` and
 * report what `plan` says, and a notifier that records what it is sent. Project `demo` runs the
 * pipeline; project `other` the default workflow. `delivery: 'outbox'` is a one-shot CLI process's
 * (the driver's): notifications wait in the outbox until `notifications.deliverOutbox()`.
 */
export async function pipelineBox(options: PipelineOptions = {}, plan: Plan = {}, extra: OrangePlugin[] = [], delivery: NotificationDelivery = 'in-process'): Promise<PipelineBox> {
  const home = await tempDir('pipeline');
  const actions: string[] = [];
  const runs: string[] = [];
  const spawned: string[] = [];
  const notified: Notification[] = [];
  const resultFiles: Array<{ path: string; text: string | null }> = [];
  let currentResultFile = '';
  const used: Record<string, number> = {};
  // The phase of the run in progress: command() is told it, result() is not.
  let currentPhase = '';
  const stand = recordingActions({
    name: 'stand-ins',
    calls: actions,
    effects: { spawn_agent: (ctx) => spawned.push(String(ctx.task.meta.harness)) },
    apply(orange) {
      orange.registerHarness({
        name: 'h',
        excludes: [],
        installed: async () => true,
        command: () => ({ argv: ['true'] }),
        headless: {
          tiers: ['small', 'big'],
          command: (request) => {
            currentPhase = request.phase;
            currentResultFile = request.resultFile;
            return { argv: ['true'] };
          },
          result: (run) => {
            const phase = currentPhase;
            const n = used[phase] ?? 0;
            used[phase] = n + 1;
            runs.push(`${phase}@${run.model ?? ''}`);
            resultFiles.push({ path: currentResultFile, text: run.resultFile });
            const entry = plan[phase]?.[n] ?? {};
            // What else happens while the run is going (someone edits TASK.md, …).
            entry.during?.();
            return { ok: entry.ok ?? true, output: entry.output ?? `${phase} ${entry.ok === false ? 'failed' : 'done'}`, costUsd: entry.costUsd ?? 0.01, data: entry.data ?? {} };
          },
        },
      });
      orange.notifications.register({ name: 'recorder', send: async (n) => void notified.push(n) });
    },
  });
  const orange = await Orange.create(
    { defaults: false, harness: 'h', workflow: 'pipeline', plugins: [stand, pipeline(options), ...extra] },
    { paths: new OrangePaths(home), notificationDelivery: delivery },
  );
  await orange.projects.add({ name: 'demo', path: home, default_branch: 'main' });
  await orange.projects.add({ name: 'other', path: join(home, 'other'), default_branch: 'main', workflow: 'default' });
  const box: PipelineBox = {
    orange,
    home,
    actions,
    spawned,
    runs,
    notified,
    resultFiles,
    async task(summary = 'fix it') {
      const { task } = await orange.engine.createTask({ project: 'demo', summary, spawn: false });
      return { project: 'demo', id: task.meta.id };
    },
    async executing() {
      const ref = await box.task();
      await box.to(ref, 'classifying');
      await box.set(ref, { confidence: 0.9 });
      await box.to(ref, 'routing');
      await box.set(ref, { pipeline_phases: 'fix', phase: 'fix', tier: 'small', attempt: 1 });
      await box.to(ref, 'executing');
      return ref;
    },
    async ran(step) {
      actions.splice(0);
      await step();
      return actions.splice(0);
    },
    async set(ref, patch) {
      await orange.store.withTaskLock(ref.project, ref.id, () => orange.store.update(ref.project, ref.id, patch));
    },
    to: (ref, status, reason, actor = 'orange') => orange.engine.transition(ref, status, { cause: 'auto', actor, ...(reason ? { reason } : {}) }),
    async refusal(ref, status, actor = 'orange') {
      const error = await orange.engine.transition(ref, status, { cause: 'auto', actor }).then(
        () => null,
        (e: unknown) => e,
      );
      return isOrangeError(error) ? `${error.code}: ${error.message}` : String(error);
    },
    async meta(ref) {
      return (await orange.store.read(ref.project, ref.id)).meta;
    },
    async cleanup() {
      await orange.notifications.settle();
      await rm(home, { recursive: true, force: true });
    },
  };
  return box;
}
