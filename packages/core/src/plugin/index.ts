// The plugin room's door: what other rooms (and the public index) may import from it.
export * from './core-actions.js';
export * from './harness-settings-file.js';
export * from './headless-data.js';
export * from './hooks.js';
export * from './noop-actions.js';
export * from './plugin.js';
