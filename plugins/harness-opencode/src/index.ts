export { opencode, opencodeArgv, opencodeConfigDir, type OpencodeOptions } from './opencode.js';
export { writeOpencodeConfig, reviewerConfigContent, ALLOWED_BASH, REVIEWER_DENIED_BASH, type OpencodeConfigInput } from './opencode-config.js';
export { OPENCODE_TIERS, opencodeHeadlessArgv, opencodeHeadlessResult } from './headless.js';
