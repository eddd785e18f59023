import { packageBuild } from '../../tsup.base';

// ink, react, string-width, chokidar and everything they import are bundled into this one file: loaded as ~100 separate
// ES modules from node_modules, resolving and translating them took about half of `orange dash`'s
// first screen. @orange/core and execa stay external (shared with the CLI's other code).
export default packageBuild({
  entry: ['src/index.ts', 'src/fleet.ts'],
  noExternal: ['ink', 'react', 'string-width', 'chokidar', 'readdirp'],
  // Only imported by ink when DEV=true (React devtools); ink then says to install it.
  external: ['react-devtools-core'],
  // react and its reconciler pick their build from NODE_ENV: only the production one is kept.
  define: { 'process.env.NODE_ENV': '"production"' },
  // The CommonJS parts (react, its reconciler, signal-exit) call require() for Node's built-ins.
  banner: { js: "import { createRequire as __orangeCreateRequire } from 'node:module'; const require = __orangeCreateRequire(import.meta.url);" },
});
