// The log room's door: what other rooms (and the public index) may import from it.
export * from './log.js';
