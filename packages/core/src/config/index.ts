// The config room's door: what other rooms (and the public index) may import from it.
export * from './config.js';
export * from './loaders.js';
export * from './notifications-config.js';
