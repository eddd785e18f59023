export { gemini, geminiArgv, geminiDir, type GeminiOptions } from './gemini.js';
export { writeReviewerPolicy, REVIEWER_POLICY_PATH, REVIEWER_POLICY_TOML, REVIEWER_DENIED_COMMANDS } from './reviewer-policy.js';
export { GEMINI_TIERS, geminiHeadlessArgv, geminiHeadlessResult } from './headless.js';
