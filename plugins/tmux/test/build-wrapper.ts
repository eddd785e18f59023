import { buildSync } from 'esbuild';
import { fileURLToPath } from 'node:url';

/** Tests run from src/, but agents run the built wrapper (and kills the built reaper): build both fresh before any test. */
export default function setup(): void {
  for (const [name, external] of [['agent-wrapper', false], ['window-reaper', true]] as const) {
    buildSync({
      entryPoints: [fileURLToPath(new URL(`../src/${name}.ts`, import.meta.url))],
      outfile: fileURLToPath(new URL(`../dist/${name}.js`, import.meta.url)),
      platform: 'node',
      format: 'esm',
      target: 'node20',
      bundle: true,
      // The reaper loads @orange/core and execa from node_modules, as the tsup build does.
      ...(external ? { packages: 'external' as const } : {}),
      logLevel: 'error',
    });
  }
}
