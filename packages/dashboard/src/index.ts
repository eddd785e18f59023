export { openDashboard, type DashboardOptions } from './open-dashboard.js';
export { App, type AppProps, type DashboardView, type LiveValue } from './components/app.js';
export { TaskFeed, type FeedSnapshot, type TaskSource, type TaskFeedOptions } from './task-feed.js';
export { OrangeActions, type DashboardActions, type CreateRequest, type WorkflowOperators } from './task-actions.js';
export { MonitorDuty } from './monitor-duty.js';
export { visibleRows, compareRows, type TaskRow, type RowFilter, type Liveness, type PullRequestView } from './task-row.js';
export { tableAction, footerKeys, helpKeys, type TableAction, type FooterKey } from './key-map.js';
