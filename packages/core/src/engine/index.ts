// The engine room's door: the engine (every move of a task) and what a person does to a task.
export { Engine } from './engine.js';
export { exitHandledInStatus, failedStartInStatus, START_RETRIES } from './exit-ledger.js';
export * from './operations.js';
export { personCommand } from './authority.js';
