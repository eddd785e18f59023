// The process room's door: what other rooms (and the public index) may import from it.
export * from './call-origin.js';
export * from './executable.js';
export * from './git-safety.js';
export * from './process-stop.js';
export * from './process-table.js';
export * from './quick-run.js';
export * from './signal-listeners.js';
