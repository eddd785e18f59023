export { pi, piArgv, piAgentDir, promptArgument, type PiOptions } from './pi.js';
export { writeReviewerGuard, REVIEWER_GUARD_PATH, REVIEWER_GUARD_SOURCE, REVIEWER_BLOCKED_COMMAND } from './reviewer-guard.js';
