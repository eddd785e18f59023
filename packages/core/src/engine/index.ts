// The engine room's door: what other rooms (and the public index) may import from it.
export * from './engine.js';
export * from './operations.js';
