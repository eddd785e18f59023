// The task room's door: what other rooms (and the public index) may import from it.
export * from './sections.js';
export * from './task.js';
