import type { SharedModules } from '@orange/core';

/**
 * The modules a config and the files it imports get from the running CLI instead of resolving
 * them on disk: one @orange/core, one zod, one copy of each built-in plugin and notifier, so
 * `instanceof`, hooks and schemas are shared, and a repository needs none of them installed. A
 * plugin added to the CLI's bundle belongs here too (docs/configuration.md, "Imports a config
 * shares with the CLI").
 */
export async function sharedModules(): Promise<SharedModules> {
  const [core, zod, tmux, worktreePool, claude, codex, pi, opencode, gemini, command, github, reactions, pipeline] = await Promise.all([
    import('@orange/core'),
    import('zod'),
    import('@orange/plugin-tmux'),
    import('@orange/plugin-worktree-pool'),
    import('@orange/harness-claude'),
    import('@orange/harness-codex'),
    import('@orange/harness-pi'),
    import('@orange/harness-opencode'),
    import('@orange/harness-gemini'),
    import('@orange/harness-command'),
    import('@orange/plugin-github'),
    import('@orange/plugin-reactions'),
    import('@orange/plugin-pipeline'),
  ]);
  const table: Record<string, object> = {
    '@orange/core': core,
    zod,
    // `zod` is zod 4's classic API, the same module as `zod/v4`.
    'zod/v4': zod,
    'zod/v4/core': zod.core,
    '@orange/plugin-tmux': tmux,
    '@orange/plugin-worktree-pool': worktreePool,
    '@orange/harness-claude': claude,
    '@orange/harness-codex': codex,
    '@orange/harness-pi': pi,
    '@orange/harness-opencode': opencode,
    '@orange/harness-gemini': gemini,
    '@orange/harness-command': command,
    '@orange/plugin-github': github,
    '@orange/plugin-reactions': reactions,
    '@orange/plugin-pipeline': pipeline,
  };
  for (const [specifier, load] of Object.entries(ON_DEMAND)) {
    let loaded: object | undefined;
    Object.defineProperty(table, specifier, { enumerable: true, get: () => (loaded ??= load()) });
  }
  return table;
}

/**
 * The notifiers are in the bundle but no built-in plugin uses them, and the webhook's http and
 * https modules cost start-up time: they are evaluated only when a config imports one (the config
 * loader reads a shared module by property access, when asked for it). `require`, not `import()`:
 * the loader asks synchronously, and esbuild turns the require of a bundled module into its lazy
 * initialiser.
 */
const notifiers = (): typeof import('./bundled-notifiers.js') => require('./bundled-notifiers.js') as typeof import('./bundled-notifiers.js');
/** The Docker runtime, likewise: only a config that runs agents in containers loads it. */
const runtimes = (): typeof import('./bundled-runtimes.js') => require('./bundled-runtimes.js') as typeof import('./bundled-runtimes.js');
const ON_DEMAND: Readonly<Record<string, () => object>> = {
  '@orange/notifier-desktop': () => notifiers().desktop,
  '@orange/notifier-webhook': () => notifiers().webhook,
  '@orange/notifier-slack': () => notifiers().slack,
  '@orange/runtime-docker': () => runtimes().docker,
};
