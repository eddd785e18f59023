// The gateway room's door. Node builtins only: the CLI's `bin/run.cjs` and every agent wrapper load
// it (as `@orange/core/gateway`) before anything else, so it must cost next to nothing.
export * from './client.js';
export * from './protocol.js';
