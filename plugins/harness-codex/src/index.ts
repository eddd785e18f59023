export { codex, codexArgv, type CodexOptions, type CodexSandboxDirs } from './codex.js';
export { CODEX_TIERS, codexHeadlessArgv, codexHeadlessResult, type CodexPrice } from './headless.js';
