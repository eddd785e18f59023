export { openWeb, DEFAULT_PORT, type WebOptions, type WebServer } from './open-web.js';
export { webToken } from './web-token.js';
export type { WebOperators } from './task-api.js';
export type * from './protocol.js';
