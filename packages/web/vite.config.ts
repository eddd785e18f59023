import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The page of `orange web`: built from app/ into dist/app/, which the server serves at `/`.
// Preact's JSX through Vite's own oxc transform (no preset plugin): the automatic runtime from preact.
export default defineConfig({
  root: fileURLToPath(new URL('./app', import.meta.url)),
  base: './',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('./dist/app', import.meta.url)),
    emptyOutDir: true,
    sourcemap: false,
    target: 'es2022',
    // The server's Content-Security-Policy has no 'unsafe-inline' for scripts: nothing may be inlined as a script.
    modulePreload: { polyfill: false },
    // xterm.js alone is ~300 kB minified; one page, loaded once from 127.0.0.1.
    chunkSizeWarningLimit: 700,
  },
});
