export { pi, piArgv, piAgentDir, type PiOptions } from './pi.js';
export { promptArgument } from './prompt-argument.js';
export { PI_TIERS, piHeadlessArgv, piHeadlessResult } from './headless.js';
export { writeReviewerGuard, REVIEWER_GUARD_PATH, REVIEWER_GUARD_SOURCE, REVIEWER_BLOCKED_COMMAND } from './reviewer-guard.js';
