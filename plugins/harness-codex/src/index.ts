export { codex, codexArgv, type CodexOptions, type CodexSandboxDirs } from './codex.js';
