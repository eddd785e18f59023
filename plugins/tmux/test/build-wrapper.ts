import { buildSync } from 'esbuild';
import { fileURLToPath } from 'node:url';

/** Tests run from src/, but agents run the built wrapper: build it fresh before any test. */
export default function setup(): void {
  buildSync({
    entryPoints: [fileURLToPath(new URL('../src/agent-wrapper.ts', import.meta.url))],
    outfile: fileURLToPath(new URL('../dist/agent-wrapper.js', import.meta.url)),
    platform: 'node',
    format: 'esm',
    target: 'node20',
    bundle: true,
    logLevel: 'error',
  });
}
