// The text room's door: what other rooms (and the public index) may import from it.
export * from './json-error-offset.js';
export * from './relative-time.js';
export * from './terminal-text.js';
