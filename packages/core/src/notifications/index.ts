// The notifications room's door: what other rooms (and the public index) may import from it.
export * from './core-notifications.js';
export * from './delivery.js';
export * from './notifications.js';
export * from './outbox.js';
