import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Plugin } from 'esbuild';
import type { Options } from 'tsup';
import { packageBuild } from '../../tsup.base';

type TsupPlugin = NonNullable<Options['plugins']>[number];

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

/**
 * V8 drops a script's dynamic-import callback when the script comes from a code cache (Node 20),
 * so every `import()` left in the bundle (a config file, jiti, oclif loading a module) calls
 * `__orangeImport` instead: src/startup/code-cache.ts passes a function that imports from an ES module;
 * required the ordinary way (oclif's manifest at build time), the bundle imports by itself. A
 * dynamic import in a form this does not rewrite fails the build instead of a user's call.
 */
const importThroughLoader: TsupPlugin = {
  name: 'import-through-loader',
  renderChunk(code, chunk) {
    if (!chunk.path.endsWith('.cjs')) return undefined;
    const rewritten = code.replaceAll('await import(', 'await __orangeImportFn(');
    // What may remain: `import(` inside a string or comment, right after a quote or backtick.
    const stray = /(^|[^\w$.'"`])import\s*\(/m.exec(rewritten);
    if (stray) throw new Error(`a dynamic import the code cache cannot serve is left in ${chunk.path}: …${rewritten.slice(stray.index, stray.index + 80)}`);
    // On the first line, after "use strict", so the source map's lines stay true.
    const header = " const __orangeImportFn = typeof __orangeImport === 'function' ? __orangeImport : (specifier) => import(specifier);";
    const at = rewritten.indexOf('\n');
    return { code: rewritten.slice(0, at) + header + rewritten.slice(at) };
  },
};

/**
 * The versions of what the bundle inlines (@orange/core, zod, the built-in plugins), as resolved
 * from this package: `orange doctor` compares a repository's installed copies with them.
 */
function bundledVersions(): Record<string, string> {
  const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as { dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
  const names = Object.keys({ ...manifest.dependencies, ...manifest.devDependencies }).filter((n) => (n.startsWith('@orange/') && n !== '@orange/dashboard' && n !== '@orange/web') || n === 'zod');
  return Object.fromEntries(
    names.map((name) => {
      // Where Node finds the package from here: the nearest node_modules that has it.
      for (let dir = process.cwd(); dir !== dirname(dir); dir = dirname(dir)) {
        const file = join(dir, 'node_modules', name, 'package.json');
        if (existsSync(file)) return [name, (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version];
      }
      throw new Error(`cannot find the version of ${name}`);
    }),
  );
}

/**
 * The git commit the CLI is built from, for `orange --version` (src/hooks/commit-in-version.ts):
 * the short hash, with `-dirty` when the working tree has changes (untracked files too); empty when
 * this package is not tracked by a git checkout (a build from a tarball, even one unpacked inside
 * another repository).
 */
function buildCommit(): string {
  const git = (...args: string[]) => execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  try {
    git('ls-files', '--error-unmatch', 'package.json');
    const dirty = git('--no-optional-locks', 'status', '--porcelain') !== '';
    return `${git('rev-parse', '--short', 'HEAD')}${dirty ? '-dirty' : ''}`;
  } catch {
    return '';
  }
}

// The CLI is one CommonJS bundle, `dist/main.cjs`: oclif, @orange/core, zod and the built-in
// plugins are inlined, so a call reads one file instead of ~300, and bin/run.cjs loads it through
// a V8 code cache (src/startup/code-cache.ts) so it is not parsed and compiled again on every call —
// agents call orange constantly. CommonJS because Node 20 can only feed cached code to a script,
// not to an ES module. What only some commands need (plugins, cosmiconfig, the demo) sits behind
// dynamic imports, which esbuild turns into functions that run on first use. oclif finds the
// commands and the hook as named exports of the same file (package.json). jiti loads TypeScript
// configs and stays a package; typescript is never used.
const bundle = packageBuild({
  entry: { main: 'src/main.ts' },
  format: ['cjs'],
  dts: false,
  // package.json's build script empties dist first: two builds cleaning it at once could race.
  clean: false,
  // import.meta.url, which the bundled code uses, from the bundle's own path.
  shims: true,
  // Everything but jiti and typescript (tsup would otherwise leave every dependency external),
  // and the dashboard and the web page: ES modules (ink and react are ESM only) that `orange dash`
  // and `orange web` import from node_modules, so no other command loads them.
  noExternal: [/^(?!(jiti|typescript|@orange\/dashboard|@orange\/web)(\/|$))/],
  external: ['jiti', 'typescript', '@orange/dashboard', '@orange/web'],
  esbuildPlugins: [englishZodOnly, withoutCommandGlob],
  define: { __ORANGE_BUNDLED_VERSIONS__: JSON.stringify(JSON.stringify(bundledVersions())), __ORANGE_COMMIT__: JSON.stringify(buildCommit()) },
  plugins: [importThroughLoader],
});

// What bin/run.cjs runs: the gateway's small client, then (when no gateway answers) the bundle
// through the code cache. And the wrapper every agent runs in (`agentWrapperPath`), and the docker
// runtime's container runner. CommonJS, and one file each: an agent's call through a long-running
// Orange loads nothing else.
const entry = packageBuild({
  entry: {
    entry: 'src/startup/entry.ts',
    'agent-wrapper': '../../plugins/tmux/src/agent-wrapper.ts',
    'container-runner': '../../plugins/runtime-docker/src/container-runner.ts',
  },
  format: ['cjs'],
  dts: false,
  clean: false,
  splitting: false,
  noExternal: [/.*/],
});

// A small ES module run on its own: the window reaper the tmux plugin starts beside its own module
// (`windowReaperPath`). The package has no library entry: it is a command (`bin`), and a program
// that wants Orange imports @orange/core.
const scripts = packageBuild({
  entry: {
    'window-reaper': '../../plugins/tmux/src/window-reaper.ts',
  },
  dts: false,
  clean: false,
  // One file: it runs alone.
  splitting: false,
  noExternal: [/^(?!(jiti|typescript)(\/|$))/],
  external: ['jiti', 'typescript'],
  // Bundled CommonJS (execa's cross-spawn, in the window reaper) calls require() for Node's modules.
  banner: { js: "import { createRequire as __orangeCreateRequire } from 'node:module'; const require = __orangeCreateRequire(import.meta.url);" },
});

export default [bundle, entry, scripts];
