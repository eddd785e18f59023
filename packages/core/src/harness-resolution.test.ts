/**
 * Which harness runs an agent (`orange.resolveHarness(task, role)`), as docs/plugins.md states
 * it: for a reviewer `task.review_harness`, else config `reviewHarness`; then `task.harness`,
 * else config `harness`; with nothing named, the first registered harness whose `installed()`
 * is true. Core never calls it itself: the runtime plugin (tmux's `spawn_agent` /
 * `spawn_reviewer`) does, so the end-to-end cases below tap those actions the same way.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { editSection, errorOf, recordingPlugin, sandbox, type Sandbox } from '../test/fixtures.js';
import { OrangeError } from './errors/errors.js';
import { Orange } from './orange.js';
import type { Harness, OrangePlugin } from './plugin/index.js';
import { newTaskId } from './store/names.js';
import { OrangePaths } from './store/paths.js';
import { newTaskMeta } from './store/task-file.js';
import type { AgentRole, TaskMeta } from './task/task.js';

const PLAN = 'APPROACH: split the parser\nTOUCHING: parser.ts';
const HANDOFF = 'DONE: parser split';

/** A harness that says whether it is installed and logs each time it is asked. */
function fakeHarness(name: string, installed: boolean, probes: string[] = []): Harness {
  return {
    name,
    excludes: [],
    async installed() {
      probes.push(name);
      return installed;
    },
    command: (request) => ({ argv: [name, request.prompt] }),
  };
}

/** A plugin registering `harnesses` in order, like `claude()` or `codex()` do. */
function harnessPlugin(name: string, ...harnesses: Harness[]): OrangePlugin {
  return {
    name,
    apply(orange) {
      for (const harness of harnesses) orange.registerHarness(harness);
    },
  };
}

// resolveHarness reads only the config and the registry; the home gets only the log (a replaced
// harness is logged), and goes with the file's tests.
const home = mkdtempSync(join(tmpdir(), 'orange-harness-resolution-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

/** An Orange whose home is only logged to. */
function orangeWith(config: Record<string, unknown>, plugins: OrangePlugin[], defaultPlugins?: OrangePlugin[]): Promise<Orange> {
  return Orange.create(
    { ...config, plugins: [recordingPlugin([]), ...plugins] },
    { paths: new OrangePaths(home), ...(defaultPlugins ? { defaultPlugins: () => defaultPlugins } : {}) },
  );
}

function meta(fields: Partial<TaskMeta> = {}): TaskMeta {
  const id = newTaskId();
  return newTaskMeta({ id, project: 'demo', branch: `orange-tasks/${id}`, status: 'planning', ...fields });
}

async function chosen(orange: Orange, fields: Partial<TaskMeta>, role: AgentRole): Promise<string> {
  return (await orange.resolveHarness(meta(fields), role)).name;
}

describe('a worker’s harness', () => {
  it('is the task’s own (task create --harness) over the config harness, without asking any harness whether it is installed', async () => {
    const probes: string[] = [];
    const orange = await orangeWith({ harness: 'claude' }, [
      harnessPlugin('harnesses', fakeHarness('claude', true, probes), fakeHarness('codex', false, probes)),
    ]);
    // Naming a harness is the user's choice: it is used even when it reports not installed.
    expect(await chosen(orange, { harness: 'codex' }, 'worker')).toBe('codex');
    expect(probes).toEqual([]);
  });

  it('is the config harness when the task names none, even ahead of an installed one registered first', async () => {
    const probes: string[] = [];
    const orange = await orangeWith({ harness: 'codex' }, [
      harnessPlugin('harnesses', fakeHarness('claude', true, probes), fakeHarness('codex', true, probes)),
    ]);
    expect(await chosen(orange, {}, 'worker')).toBe('codex');
    expect(probes).toEqual([]);
  });

  it('ignores the reviewer choices: the task’s review_harness and the config reviewHarness', async () => {
    const orange = await orangeWith({ harness: 'claude', reviewHarness: 'codex' }, [
      harnessPlugin('harnesses', fakeHarness('claude', true), fakeHarness('codex', true), fakeHarness('aider', true)),
    ]);
    expect(await chosen(orange, { review_harness: 'aider' }, 'worker')).toBe('claude');
    expect(await chosen(orange, { harness: 'aider', review_harness: 'codex' }, 'worker')).toBe('aider');
  });
});

describe('a reviewer’s harness', () => {
  const three = () => harnessPlugin('harnesses', fakeHarness('claude', true), fakeHarness('codex', true), fakeHarness('aider', true));

  it('is the task’s review_harness (task create --review-harness) over every other choice', async () => {
    const orange = await orangeWith({ harness: 'claude', reviewHarness: 'codex' }, [three()]);
    expect(await chosen(orange, { harness: 'claude', review_harness: 'aider' }, 'reviewer')).toBe('aider');
  });

  it('is the config reviewHarness when the task names no review_harness, also over the task’s worker harness', async () => {
    // docs/plugins.md: "for a reviewer, task.review_harness, else config reviewHarness; then task.harness".
    const orange = await orangeWith({ harness: 'claude', reviewHarness: 'codex' }, [three()]);
    expect(await chosen(orange, {}, 'reviewer')).toBe('codex');
    expect(await chosen(orange, { harness: 'aider' }, 'reviewer')).toBe('codex');
  });

  it('falls back to the task’s harness, then the config harness, when no reviewer harness is named', async () => {
    const orange = await orangeWith({ harness: 'claude' }, [three()]);
    expect(await chosen(orange, { harness: 'aider' }, 'reviewer')).toBe('aider');
    expect(await chosen(orange, {}, 'reviewer')).toBe('claude');
  });
});

describe('a harness found by installed()', () => {
  it('is the first registered one that is installed, in registration order across plugins, and no later one is asked', async () => {
    const probes: string[] = [];
    const orange = await orangeWith({}, [
      harnessPlugin('first', fakeHarness('claude', false, probes)),
      harnessPlugin('second', fakeHarness('codex', true, probes), fakeHarness('command', true, probes)),
    ]);
    expect(await chosen(orange, {}, 'worker')).toBe('codex');
    expect(probes).toEqual(['claude', 'codex']);
  });

  it('is found the same way for a reviewer when nothing names one', async () => {
    const orange = await orangeWith({}, [harnessPlugin('harnesses', fakeHarness('claude', false), fakeHarness('codex', true))]);
    expect(await chosen(orange, {}, 'reviewer')).toBe('codex');
  });

  it('is the replacing one when a later plugin registers a harness under an existing name', async () => {
    const replacement = fakeHarness('claude', true);
    const orange = await orangeWith({}, [harnessPlugin('claude', fakeHarness('claude', true)), harnessPlugin('claude-opus', replacement)]);
    expect([...orange.harnesses.keys()]).toEqual(['claude']);
    expect(await orange.resolveHarness(meta(), 'worker')).toBe(replacement);
  });

  it('keeps a built-in’s place in the detection order when the config lists that built-in again to change its options', async () => {
    // docs/configuration.md: "To change a built-in's options, list it again — same name, so it
    // replaces the default one", and detection follows "claude, codex, pi, opencode, gemini,
    // command in that order".
    // Re-listing claude({ model: 'opus' }) must not make codex the default agent.
    const orange = await orangeWith(
      {},
      [harnessPlugin('claude', fakeHarness('claude', true))],
      [harnessPlugin('claude', fakeHarness('claude', true)), harnessPlugin('codex', fakeHarness('codex', true)), harnessPlugin('command', fakeHarness('command', true))],
    );
    expect(await chosen(orange, {}, 'worker')).toBe('claude');
  });
});

describe('harness errors', () => {
  const NONE_INSTALLED = 'no agent harness is installed (install claude, codex, pi, opencode or gemini, or configure the command harness)';

  it('refuses with E_HARNESS in one sentence when no registered harness is installed', async () => {
    const orange = await orangeWith({}, [harnessPlugin('harnesses', fakeHarness('claude', false), fakeHarness('codex', false))]);
    const error = await errorOf(orange.resolveHarness(meta(), 'worker'));
    expect(error).toMatchObject({ code: 'E_HARNESS', message: NONE_INSTALLED });
    expect(error.message).not.toContain('\n');
  });

  it('says the same when no harness is registered at all', async () => {
    const orange = await orangeWith({}, []);
    expect(await errorOf(orange.resolveHarness(meta(), 'reviewer'))).toMatchObject({ code: 'E_HARNESS', message: NONE_INSTALLED });
  });

  it.each([
    ['the task’s harness', {}, { harness: 'gemini' }, 'worker'],
    ['the task’s review_harness', {}, { review_harness: 'gemini' }, 'reviewer'],
  ] as const)('refuses an unknown name from %s with E_HARNESS naming it and the known harnesses', async (_, config, fields, role) => {
    const orange = await orangeWith(config, [harnessPlugin('harnesses', fakeHarness('claude', true), fakeHarness('codex', true))]);
    const error = await errorOf(orange.resolveHarness(meta(fields), role));
    expect(error).toMatchObject({ code: 'E_HARNESS', message: 'no harness named "gemini" (known: claude, codex)' });
  });

  it.each(['harness', 'reviewHarness'] as const)('refuses a config %s that names no registered harness when the config loads, not at spawn time', async (field) => {
    const error = await errorOf(orangeWith({ [field]: 'gemini' }, [harnessPlugin('harnesses', fakeHarness('claude', true), fakeHarness('codex', false))]));
    expect(error).toMatchObject({
      code: 'E_CONFIG',
      message: `built-in config: field "${field}" names no registered harness "gemini" (known: claude, codex)`,
      details: { field },
    });
  });

  it('accepts a config harness that is registered but not installed (installation is checked when an agent starts)', async () => {
    const orange = await orangeWith({ harness: 'codex' }, [harnessPlugin('harnesses', fakeHarness('claude', true), fakeHarness('codex', false))]);
    expect(orange.config.harness).toBe('codex');
  });

  it('says "known: none" for an unknown name when no harness is registered', async () => {
    const orange = await orangeWith({}, []);
    expect(await errorOf(orange.resolveHarness(meta({ harness: 'claude' }), 'worker'))).toMatchObject({
      code: 'E_HARNESS',
      message: 'no harness named "claude" (known: none)',
    });
  });

  it('treats an empty harness name (task create --harness "") like no name: the config harness still applies', async () => {
    // The config refuses an empty name (z.string().min(1)); a task's empty name must not
    // silently skip the config's choice and fall through to detection.
    const orange = await orangeWith({ harness: 'codex' }, [harnessPlugin('harnesses', fakeHarness('claude', true), fakeHarness('codex', true))]);
    expect(await chosen(orange, { harness: '' }, 'worker')).toBe('codex');
    expect(await chosen(orange, { review_harness: '' }, 'reviewer')).toBe('codex');
  });
});

describe('from task creation to a started agent', () => {
  let box: Sandbox | undefined;
  afterEach(async () => {
    await box?.cleanup();
    box = undefined;
  });

  /** Resolves the harness in spawn_agent / spawn_reviewer, as the tmux plugin does, and logs it. */
  function runtimeProbe(started: string[]): OrangePlugin {
    return {
      name: 'runtime-probe',
      apply(orange) {
        for (const [action, role] of [['spawn_agent', 'worker'], ['spawn_reviewer', 'reviewer']] as const) {
          orange.hooks.actions.for(action).tapPromise('runtime-probe', async (ctx) => {
            started.push(`${role}:${(await ctx.orange.resolveHarness(ctx.task.meta, role)).name}`);
          });
        }
      },
    };
  }

  it('starts the worker and the reviewer with the harnesses the task was created with', async () => {
    const started: string[] = [];
    box = await sandbox({ harness: 'claude', reviewHarness: 'claude' }, [
      harnessPlugin('harnesses', fakeHarness('claude', true), fakeHarness('codex', true), fakeHarness('aider', true)),
      runtimeProbe(started),
    ]);
    const { task, failedHooks } = await box.orange.engine.createTask({ project: 'demo', summary: 'split the parser', harness: 'codex', reviewHarness: 'aider' });
    expect(failedHooks).toEqual([]);
    expect(task.meta).toMatchObject({ status: 'planning', harness: 'codex', review_harness: 'aider' });
    const ref = { project: 'demo', id: task.meta.id };
    await editSection(box, ref, 'Plan', PLAN);
    await box.orange.engine.transition(ref, 'working');
    await editSection(box, ref, 'Handoff', HANDOFF);
    await box.orange.engine.transition(ref, 'agent-review');
    expect(started).toEqual(['worker:codex', 'reviewer:aider']);
  });

  it('does not fail task create for an unknown --harness: spawn_agent fails with the E_HARNESS message and the task is flagged', async () => {
    // docs/cli.md: harness names are checked only when an agent starts.
    const started: string[] = [];
    box = await sandbox({}, [harnessPlugin('harnesses', fakeHarness('claude', true)), runtimeProbe(started)]);
    const { task, spawned, failedHooks } = await box.orange.engine.createTask({ project: 'demo', summary: 'split the parser', harness: 'gemini' });
    expect(spawned).toBe(true);
    expect(failedHooks).toEqual(['spawn_agent']);
    expect(started).toEqual([]);
    expect(task.meta).toMatchObject({ status: 'planning', attention: 'hook failed: spawn_agent' });
    const failed = (await box.orange.store.history('demo', task.meta.id)).filter((e) => e.type === 'hook.failed');
    expect(failed).toEqual([expect.objectContaining({ hook: 'spawn_agent', error: 'no harness named "gemini" (known: claude)' })]);
  });
});
