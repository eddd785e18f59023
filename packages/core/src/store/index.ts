// The store room's door: what other rooms (and the public index) may import from it.
export * from './atomic.js';
export * from './history.js';
export * from './line-merge.js';
export * from './lock.js';
export * from './names.js';
export * from './paths.js';
export * from './projects.js';
export * from './queue.js';
export * from './regular-file.js';
export * from './task-file.js';
export * from './task-index.js';
export * from './task-state-file.js';
export * from './task-state.js';
export * from './task-store.js';
export * from './transcripts.js';
export * from './agent-identities.js';
