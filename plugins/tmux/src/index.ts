export { tmux } from './tmux.js';
export { TmuxOptionsSchema, type TmuxOptions, type TmuxOptionsInput } from './options.js';
export { sessionName, windowName, isReviewerWindow, WORKER_WINDOW } from './session-name.js';
export { TmuxRuntime } from './tmux-runtime.js';
export { workerNotice } from './worker-notice.js';
export { shimScript, perlSocketArgs, parsePerlSocket, writeExecutable, type AgentClient } from './orange-shim.js';
export { perlClientScript, type PerlClientSetup, type PerlSocket } from './perl-client.js';
