import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { definePlugin, type OrangePlugin, type TaskRef } from '@orange/core';
import { afterEach, describe, expect, it } from 'vitest';
import { pipelineBox, type PipelineBox } from '../test/pipeline-box.js';
import { runPipeline } from './driver.js';
import { MEMORY_DIR } from './memory.js';
import { LESSONS_REQUEST } from './memory-rules.js';
import type { PipelineOptions } from './options.js';

// Memory through the driver: tasks of one project run one after another in one repository (the
// stand-in worktree), each completed task commits its entry there, and the next ones read it.

let box: PipelineBox | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await box?.cleanup();
  box = undefined;
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();
}

async function repository(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'orange-memory-repo-'));
  dirs.push(dir);
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.name', 'T');
  git(dir, 'config', 'user.email', 't@t.invalid');
  await writeFile(join(dir, 'README.md'), 'x\n');
  git(dir, 'add', 'README.md');
  git(dir, 'commit', '-q', '-m', 'init');
  return dir;
}

interface Run {
  readonly phase: string;
  readonly model: string | null;
  readonly prompt: string;
}

/**
 * A harness `scripted` (tiers small, big) whose phase runs fail at `small` and pass at `big`,
 * costing $0.01 and $0.05; and an acquire_workspace that gives every task the repository `dir`.
 */
function scripted(dir: string, runs: Run[]): OrangePlugin {
  return definePlugin({
    name: 'scripted',
    apply(orange) {
      let current: Run = { phase: '', model: null, prompt: '' };
      orange.registerHarness({
        name: 'scripted',
        excludes: [],
        installed: async () => true,
        command: () => ({ argv: ['true'] }),
        headless: {
          tiers: ['small', 'big'],
          command: (request) => {
            current = { phase: request.phase, model: request.model, prompt: request.prompt };
            runs.push(current);
            return { argv: ['true'] };
          },
          result: () => {
            if (current.phase === 'classify') return { ok: true, output: 'classified', costUsd: 0.01, data: { intent: 'bugfix', confidence: 0.9 } };
            const ok = current.model === 'big';
            return { ok, output: `${current.phase} ${ok ? 'done' : 'failed'} on ${current.model}`, costUsd: ok ? 0.05 : 0.01, data: {} };
          },
        },
      });
      orange.hooks.actions.for('acquire_workspace').tapPromise('scripted', async (ctx) => {
        if (ctx.task.meta.workspace !== dir) await ctx.update({ workspace: dir });
      });
    },
  });
}

async function fleet(options: PipelineOptions, count: number, prepare?: (b: PipelineBox, ref: TaskRef) => Promise<void>) {
  const dir = await repository();
  const runs: Run[] = [];
  const b = await pipelineBox({ intents: { bugfix: { phases: ['reproduce', 'fix'] } }, attempts: 2, breaker: 3, ...options }, {}, [scripted(dir, runs)]);
  box = b;
  const costs: number[] = [];
  const refs: TaskRef[] = [];
  for (let i = 0; i < count; i++) {
    const ref = await b.task(`fix crash ${i + 1}`);
    refs.push(ref);
    await b.set(ref, { harness: 'scripted' });
    await prepare?.(b, ref);
    await b.to(ref, 'classifying');
    const done = await runPipeline(b.orange, ref);
    expect(done.meta.status).toBe('completed');
    costs.push(Number(done.meta.cost_total_usd));
  }
  return { b, dir, runs, costs, refs };
}

// Five tasks of real git commits each: seconds on a quiet machine, more on a busy 2-core one.
describe('memory through the driver', { timeout: 30_000 }, () => {
  it('starts an intent at the tier its last three tasks needed, and each completed task commits its entry', async () => {
    const { b, dir, runs, costs, refs } = await fleet({}, 5);
    const phaseRuns = (task: number) => runs.filter((r) => r.phase !== 'classify').slice(...(task < 3 ? [task * 4, task * 4 + 4] : [12 + (task - 3) * 2, 14 + (task - 3) * 2]));
    // Tasks 1-3: reproduce fails twice at small, then everything at big.
    for (const task of [0, 1, 2]) expect(phaseRuns(task).map((r) => `${r.phase}@${r.model}`)).toEqual(['reproduce@small', 'reproduce@small', 'reproduce@big', 'fix@big']);
    // Tasks 4 and 5 start at big: memory.
    for (const task of [3, 4]) expect(phaseRuns(task).map((r) => `${r.phase}@${r.model}`)).toEqual(['reproduce@big', 'fix@big']);
    expect(costs).toEqual([0.13, 0.13, 0.13, 0.11, 0.11]);
    const routed = (await b.orange.store.history('demo', refs[3]!.id)).find((e) => e.type === 'pipeline.memory.routed');
    expect(routed).toMatchObject({ intent: 'bugfix', tier: 'big', from: 'small', tasks: refs.slice(0, 3).map((r) => r.id) });

    // One commit per task on the branch, each adding only its own entry.
    expect(git(dir, 'log', '--format=%s').split('\n').filter((s) => s.startsWith('orange: memory'))).toHaveLength(5);
    expect(await readdir(join(dir, MEMORY_DIR))).toHaveLength(5);
    const saved = (await b.orange.store.history('demo', refs[0]!.id)).find((e) => e.type === 'pipeline.memory');
    expect(saved).toMatchObject({ file: expect.stringMatching(new RegExp(`^\\.orange/memory/.*-${refs[0]!.id}\\.json$`)), commit: expect.stringMatching(/^[0-9a-f]{40}$/) });
    expect((await b.meta(refs[0]!)).attention ?? null).toBeNull();
  });

  it("puts the entries in the classifier's and each phase's prompt, same intent first, and asks the phases for lessons", async () => {
    const { runs } = await fleet({}, 2, async (b, ref) => {
      await b.orange.engine.writeSection(ref, 'Lessons', 'The crash is in session.ts.');
    });
    const second = runs.slice(runs.findIndex((r, i) => i > 0 && r.phase === 'classify'));
    expect(second[0]?.prompt).toContain("What earlier tasks in this repository taught (Orange's memory, .orange/memory/; newest first):\n- bugfix task \"fix crash 1\"");
    expect(second[0]?.prompt).toContain('lessons: The crash is in session.ts.');
    expect(second[0]?.prompt).not.toContain(LESSONS_REQUEST);
    expect(second[1]?.prompt).toContain("(Orange's memory, .orange/memory/; bugfix tasks first, newest first):\n- bugfix task \"fix crash 1\"");
    for (const run of runs.filter((r) => r.phase !== 'classify')) expect(run.prompt).toContain(LESSONS_REQUEST);
    // The first task had no memory yet: its prompts carry none.
    expect(runs[0]?.prompt).not.toContain('What earlier tasks');
    expect(runs[0]?.prompt).not.toContain('{memory}');
  });

  it('names a check that keeps failing in the first phase prompt only', async () => {
    const dir = await repository();
    await mkdir(join(dir, MEMORY_DIR), { recursive: true });
    for (const n of [1, 2]) {
      const entry = { intent: 'feature', task: `T${n}`, completed_at: `2026-11-0${n}T00:00:00.000Z`, tier: 'small', failed_checks: [{ check: 'npm test', failures: 1, fixed_by: null }] };
      await writeFile(join(dir, MEMORY_DIR, `2026-11-0${n}-T${n}.json`), JSON.stringify(entry));
    }
    const runs: Run[] = [];
    box = await pipelineBox({ intents: { bugfix: { phases: ['reproduce', 'fix'] } } }, {}, [scripted(dir, runs)]);
    const ref = await box.task();
    await box.set(ref, { harness: 'scripted' });
    await box.to(ref, 'classifying');
    await runPipeline(box.orange, ref);
    const named = 'Checks that keep failing in this repository; run them yourself before you finish: `npm test` (failed in 2 of the last 2 tasks).';
    expect(runs.filter((r) => r.phase === 'reproduce').every((r) => r.prompt.includes(named))).toBe(true);
    expect(runs.filter((r) => r.phase === 'fix').some((r) => r.prompt.includes(named))).toBe(false);
  });

  it('with memory: false records nothing, reads nothing, and every task pays for the cheap tier again', async () => {
    const { dir, runs, costs, b, refs } = await fleet({ memory: false }, 4);
    expect(costs).toEqual([0.13, 0.13, 0.13, 0.13]);
    expect(runs.filter((r) => r.phase === 'reproduce' && r.model === 'small')).toHaveLength(8);
    expect(runs.some((r) => r.prompt.includes('What earlier tasks') || r.prompt.includes(LESSONS_REQUEST) || r.prompt.includes('{memory}'))).toBe(false);
    expect(await readdir(join(dir, '.orange')).catch(() => 'none')).toBe('none');
    expect((await b.orange.store.history('demo', refs[3]!.id)).some((e) => e.type.startsWith('pipeline.memory'))).toBe(false);
  });
});
