/**
 * The notifier packages the CLI bundles, in a module of their own that only shared-modules.ts
 * requires, on demand: esbuild then initialises them (and node:http, node:https) on that first
 * require, not when the CLI starts.
 */
export * as desktop from '@orange/notifier-desktop';
export * as webhook from '@orange/notifier-webhook';
export * as slack from '@orange/notifier-slack';
