import { defineConfig, type Options } from 'tsup';

/**
 * The one build setup for every package: ESM for Node 20, types, source maps. Dependencies
 * (zod, execa, @orange/core) stay external, so one copy of each is shared at run time.
 */
export function packageBuild(options: Options = {}) {
  return defineConfig({
    entry: ['src/index.ts'],
    format: ['esm'],
    dts: true,
    clean: true,
    sourcemap: true,
    target: 'node20',
    // Keep `node:` specifiers: tools that load the build (vitest) resolve bare `timers/promises` badly.
    removeNodeProtocol: false,
    ...options,
  });
}
