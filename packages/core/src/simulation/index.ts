// The simulation room's door: what other rooms (and the public index) may import from it.
export * from './memory-stores.js';
export * from './script.js';
export * from './simulate.js';
