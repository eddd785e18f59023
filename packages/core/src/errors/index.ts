// The errors room's door: what other rooms (and the public index) may import from it.
export * from './errors.js';
