/**
 * The Docker runtime the CLI bundles, in a module of its own that only shared-modules.ts requires,
 * on demand: a config that does not import it costs nothing at start-up. Its container runner is
 * built beside the bundle (tsup.config.ts), where the plugin looks for it.
 */
export * as docker from '@orange/runtime-docker';
