// The workflow room's door: what other rooms (and the public index) may import from it.
export * from './classic.js';
export * from './default.js';
export * from './definition.js';
export * from './exit-rules.js';
export * from './gates.js';
export * from './guard.js';
export * from './pipeline.js';
export * from './prompts.js';
export * from './workflow.js';
