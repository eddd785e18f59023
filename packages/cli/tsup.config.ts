import type { Plugin } from 'esbuild';
import { packageBuild } from '../../tsup.base';

/**
 * zod's index re-exports every locale's messages (`z.locales`, ~360 KB of the bundle to parse on
 * every call); Orange uses the English ones zod installs by default, so the others are left out.
 */
const englishZodOnly: Plugin = {
  name: 'english-zod-only',
  setup(build) {
    build.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, () => ({ contents: 'export { default as en } from "./en.js";\n', loader: 'js' }));
  },
};

/**
 * oclif requires tinyglobby (with fdir and picomatch) on start-up only to find command files by
 * pattern; the explicit strategy (package.json) never globs, so the bundle has a stand-in that
 * says so if it ever is asked to.
 */
const withoutCommandGlob: Plugin = {
  name: 'without-command-glob',
  setup(build) {
    build.onResolve({ filter: /^tinyglobby$/ }, () => ({ path: 'tinyglobby', namespace: 'without-command-glob' }));
    build.onLoad({ filter: /.*/, namespace: 'without-command-glob' }, () => ({
      contents: "exports.glob = async () => { throw new Error('orange: command files are not globbed (oclif explicit command strategy)'); };\n",
      loader: 'js',
    }));
  },
};

// The CLI is one bundle: oclif, @orange/core, zod and the built-in plugins are inlined, so a
// call resolves and reads a few files instead of ~300 (agents call orange constantly). oclif
// finds the commands through `dist/commands.js` (the explicit strategy in package.json). What
// only some commands need (plugins, cosmiconfig, the demo) stays behind dynamic imports, in
// chunks of its own. jiti loads TypeScript configs and stays a package; typescript is never used.
export default packageBuild({
  entry: {
    main: 'src/main.ts',
    commands: 'src/commands.ts',
    'hooks/command-not-found': 'src/hooks/command-not-found.ts',
    index: 'src/index.ts',
    // The tmux plugin starts this beside its own module (`agentWrapperPath`), which is here once bundled.
    'agent-wrapper': '../../plugins/tmux/src/agent-wrapper.ts',
    // Likewise the detached reaper that kills a caller's own window after it exits (`windowReaperPath`).
    'window-reaper': '../../plugins/tmux/src/window-reaper.ts',
  },
  dts: false,
  splitting: true,
  // Everything but jiti and typescript (tsup would otherwise leave every dependency external), and
  // the dashboard's ink and react: loaded from node_modules when `orange dash` runs, so no
  // other command parses them (the dashboard's own code is a lazy chunk of the bundle).
  noExternal: [/^(?!(jiti|typescript|ink|react)(\/|$))/],
  external: ['jiti', 'typescript', 'ink', 'react'],
  esbuildPlugins: [englishZodOnly, withoutCommandGlob],
  // Bundled CommonJS (oclif, cosmiconfig) calls require() for Node's modules.
  banner: { js: "import { createRequire as __orangeCreateRequire } from 'node:module'; const require = __orangeCreateRequire(import.meta.url);" },
});
