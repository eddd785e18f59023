import { packageBuild } from '../../tsup.base';

// The server only: the page (app/) is built by vite into dist/app. ws is bundled (no native parts
// are needed: its optional bufferutil is left out); @orange/core and @orange/dashboard stay shared.
export default packageBuild({
  entry: ['src/index.ts'],
  clean: false,
  noExternal: ['ws'],
  external: ['bufferutil', 'utf-8-validate'],
  banner: { js: "import { createRequire as __orangeCreateRequire } from 'node:module'; const require = __orangeCreateRequire(import.meta.url);" },
});
