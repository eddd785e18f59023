export { claude, claudeArgv, REVIEWER_DISALLOWED_TOOLS, type ClaudeOptions } from './claude.js';
export { writeClaudeSettings, ALLOWED_TOOLS, type ClaudeSettingsInput } from './settings.js';
export { CLAUDE_TIERS, claudeHeadlessArgv, claudeHeadlessResult } from './headless.js';
