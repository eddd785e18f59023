/**
 * The files `orange init` writes: a typed, commented `orange.config.ts`, and with `--plugin NAME`
 * a local plugin (a factory with zod options and a hook tap) plus a vitest test that passes as
 * generated. Pure text: the command decides where they go and whether they may be written.
 */

/** What the config is written for. */
export interface ConfigScaffold {
  /** The harness found installed, or null when none is. */
  readonly harness: string | null;
  /** Every registered harness with whether it is installed, for the comment. */
  readonly harnesses: readonly { readonly name: string; readonly installed: boolean }[];
  /** A local plugin to import and list (`--plugin NAME`). */
  readonly plugin?: string;
  /** What `npm install` takes for @orange/core: its folder in the clone this CLI runs from, else the package name. */
  readonly coreSpec?: string;
}

/** A plugin name as `orange init --plugin` takes it: kebab-case, so it is a file name and a plugin name at once. */
export const PLUGIN_NAME = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;

/** `test-runner` → `testRunner` (the factory). */
export function factoryName(plugin: string): string {
  return plugin.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

function typeName(plugin: string): string {
  const camel = factoryName(plugin);
  return `${camel.charAt(0).toUpperCase()}${camel.slice(1)}Options`;
}

export function configText(scaffold: ConfigScaffold): string {
  const installed = scaffold.harnesses.filter((h) => h.installed).map((h) => h.name);
  const known = scaffold.harnesses.map((h) => h.name).join(', ');
  const harnessLines =
    scaffold.harness !== null
      ? [
          `  // The agent CLI for workers when a task names none (--harness). Installed here: ${installed.join(', ')}.`,
          `  harness: '${scaffold.harness}',`,
          `  // The reviewer's harness; without it, reviewers use the worker's.`,
          `  // reviewHarness: '${installed.find((h) => h !== scaffold.harness) ?? scaffold.harness}',`,
        ]
      : [
          `  // No agent CLI is installed yet (${known}); install one, then name it here.`,
          `  // harness: 'claude',`,
        ];
  const pluginImport = scaffold.plugin ? [`import { ${factoryName(scaffold.plugin)} } from './plugins/${scaffold.plugin}.js';`] : [];
  const pluginEntry = scaffold.plugin ? [`    ${factoryName(scaffold.plugin)}(),`] : [];
  return [
    '// Orange for this repository: which plugins run, which agent CLI works on tasks, how many',
    '// worktrees. Reference: docs/configuration.md of Orange; `orange doctor` shows what is loaded.',
    '//',
    '// `orange` loads this file with its own @orange/core, zod and @orange/* plugins: nothing needs',
    `// to be installed for it to run. \`npm install -D ${scaffold.coreSpec ?? '@orange/core'} zod\` gives your editor the types${(scaffold.coreSpec ?? '@orange/core') === '@orange/core' ? ' (not on npm yet: the @orange/core tarball Orange came with, see docs/install.md)' : ''}.`,
    "import { defineConfig } from '@orange/core';",
    ...pluginImport,
    '',
    'export default defineConfig({',
    '  // Added to the built-in plugins (tmux, worktree-pool, claude, codex, pi, opencode, gemini, command, github). To',
    "  // change a built-in's options, list it again: import { claude } from '@orange/harness-claude';",
    "  // then claude({ model: 'opus' }).",
    ...(pluginEntry.length > 0 ? ['  plugins: [', ...pluginEntry, '  ],'] : ['  plugins: [],']),
    ...harnessLines,
    '  // Worktrees per project: how many tasks run at once (orange project add --pool-size overrides).',
    '  poolSize: 2,',
    "  // The workflow: 'default' (plan → work → agent review → your review), 'classic', or your own.",
    "  workflow: 'default',",
    '});',
    '',
  ].join('\n');
}

export function pluginText(plugin: string): string {
  const factory = factoryName(plugin);
  const options = typeName(plugin);
  return `import { definePlugin, parsePluginOptions, type OrangePlugin } from '@orange/core';
import { z } from 'zod';

/** The options of ${plugin}, checked when the config loads (a bad one names the plugin and the field). */
const ${options}Schema = z
  .object({
    /** Only transitions into these statuses are reported; empty: every transition. */
    statuses: z.array(z.string().min(1)).default([]),
  })
  .strict();

export type ${options} = z.input<typeof ${options}Schema>;

/**
 * ${plugin}: reports every status change of a task to Orange's log ($ORANGE_HOME/orange.log).
 * Replace the tap with what your team needs: a notifier, a gate (orange.registerGate), an action
 * (orange.hooks.actions.for('name')). The hook bus: docs/plugins.md of Orange.
 */
export function ${factory}(options: ${options} = {}): OrangePlugin {
  const parsed = parsePluginOptions('${plugin}', ${options}Schema, options);
  return definePlugin({
    name: '${plugin}',
    apply(orange) {
      // apply runs on every orange command: register things here, do the work in the taps.
      orange.hooks.afterTransition.tap('${plugin}', ({ task, from, to, cause }) => {
        if (parsed.statuses.length > 0 && !parsed.statuses.includes(to)) return;
        orange.log.info('${plugin}: status changed', { task: task.meta.id, from, to, cause });
      });
    },
  });
}
`;
}

export function pluginTestText(plugin: string): string {
  const factory = factoryName(plugin);
  return `import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { noopActions, Orange, OrangePaths, type AfterTransitionEvent } from '@orange/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ${factory} } from './${plugin}.js';

let home: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), '${plugin}-'));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

/** An Orange with this plugin and stand-ins for the actions of tmux and the worktree pool, in a throwaway ORANGE_HOME. */
function orangeWith(options: Parameters<typeof ${factory}>[0] = {}): Promise<Orange> {
  return Orange.create({ defaults: false, plugins: [noopActions(), ${factory}(options)] }, { paths: new OrangePaths(home) });
}

/** What the engine passes to afterTransition, with the fields this plugin reads. */
function transition(orange: Orange, from: string, to: string): AfterTransitionEvent {
  return { orange, task: { meta: { id: 'V1StGXR8Z5jdHi6BmyT4a' } }, from, to, cause: 'request' } as unknown as AfterTransitionEvent;
}

async function logged(orange: Orange): Promise<string[]> {
  const text = await readFile(orange.paths.logFile, 'utf8').catch(() => '');
  return text.split('\\n').filter((line) => line.includes('${plugin}: status changed'));
}

describe('${plugin}', () => {
  it('refuses an unknown option, naming the plugin and the option', () => {
    expect(() => ${factory}({ colour: 'red' } as never)).toThrow('plugin ${plugin}: unknown option "colour"');
  });

  it('logs every status change', async () => {
    const orange = await orangeWith();
    await orange.hooks.afterTransition.promise(transition(orange, 'working', 'agent-review'));
    const lines = await logged(orange);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] as string)).toMatchObject({ task: 'V1StGXR8Z5jdHi6BmyT4a', from: 'working', to: 'agent-review' });
  });

  it('logs only the statuses it is told to', async () => {
    const orange = await orangeWith({ statuses: ['reviewing'] });
    await orange.hooks.afterTransition.promise(transition(orange, 'working', 'agent-review'));
    await orange.hooks.afterTransition.promise(transition(orange, 'agent-review', 'reviewing'));
    expect((await logged(orange)).map((line) => (JSON.parse(line) as { to: string }).to)).toEqual(['reviewing']);
  });
});
`;
}
