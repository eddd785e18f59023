// The monitor room's door: what other rooms (and the public index) may import from it.
export * from './lease.js';
export * from './monitor.js';
export * from './pull-request-reading.js';
