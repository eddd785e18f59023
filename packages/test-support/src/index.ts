// Imported by tests only, from its TypeScript sources (vitest compiles them; nothing is built).
export { agentCli } from './agent-cli.js';
export { processAlive, signalProcess } from './signal-process.js';
export { removeTmuxSocket, tmuxSocketFile } from './tmux-socket.js';
