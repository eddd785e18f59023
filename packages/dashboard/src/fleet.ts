// The fleet without the terminal screen: the task feed, the actions and the monitor's poll, for a
// front end other than ink's (the web page). Importing it loads neither ink nor react.
export { TaskFeed, type FeedSnapshot, type TaskSource, type TaskFeedOptions } from './task-feed.js';
export { OrangeActions, type DashboardActions, type CreateRequest, type WorkflowOperators } from './task-actions.js';
export { MonitorDuty } from './monitor-duty.js';
export { visibleRows, compareRows, checksMark, pullRequestNumber, workspaceNumber, type TaskRow, type RowFilter, type Liveness, type PullRequestView } from './task-row.js';
export { openUrl, urlOpener } from './open-url.js';
