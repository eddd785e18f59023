// The plugin room's door: the plugin API (the Orange and Engine a plugin sees, the bus, slots,
// notifications as plugins raise them, pull requests as the SCM reports them) and the core's own
// actions.
export * from './core-actions.js';
export * from './define.js';
export * from './engine.js';
export * from './harness-settings-file.js';
export * from './headless-data.js';
export * from './headless-env.js';
export * from './hooks.js';
export * from './noop-actions.js';
export * from './notification.js';
export * from './orange.js';
export * from './pull-request.js';
export * from './slots.js';
