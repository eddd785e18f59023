export { github, type GithubOptions } from './github.js';
export { GithubScm, pullRequestUrl, type GithubScmOptions, type PullRequestInfo } from './github-scm.js';
export { deleteRemoteBranch, type RemoteBranchDeletion } from './remote-branch.js';
export { mergeLocally, type LocalMergeInput, type LocalMergeResult } from './local-merge.js';
export { findPullRequestTemplate, pullRequestBody } from './pull-request-body.js';
export { GH_MISSING, GH_UNAUTHENTICATED, ISSUE_WITHOUT_GH, ghMissing, ghUnauthenticated } from './gh.js';
export { GithubIssues } from './github-issues.js';
export { parseFeedback, parseCheck, parseReview, commentsByReview, pullRequestCoordinates, actionsRun, FEEDBACK_FIELDS } from './pull-request-feedback.js';
