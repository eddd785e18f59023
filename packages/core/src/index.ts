export { OrangeError, TransitionRefused, WorkflowInvalid, isOrangeError, type ErrorCode } from './errors.js';
export { parseGuard, evaluateGuard, guardsOverlap, type Guard, type GuardOperator, type GuardLiteral, type GuardParse } from './guard.js';
export { parseSections, setSection, sectionNameProblem, strayHeading, type Sections } from './sections.js';
export { builtinGates, reviewVerdict, gateContext, type Gate, type GateContext, type GateResult, type ReviewVerdict } from './gates.js';
export { TaskMetaSchema, TASK_ID_PATTERN, type Task, type TaskMeta, type AgentRole } from './task.js';
export {
  defineWorkflow,
  WorkflowSchema,
  type WorkflowInput,
  type WorkflowDefinition,
  type StateDefinition,
  type TransitionDefinition,
  type ExitRule,
  type PromptRef,
} from './workflow/definition.js';
export { Workflow, validateWorkflow, type Transition, type WorkflowVocabulary } from './workflow/workflow.js';
export { defaultWorkflow } from './workflow/default.js';
export { classicWorkflow } from './workflow/classic.js';
export { pipelineWorkflow } from './workflow/pipeline.js';
export { renderPrompt } from './workflow/prompts.js';
export { decideExit, type ExitDecision } from './exit-rules.js';
export { isHeld } from './queue.js';
export {
  Engine,
  type TaskRef,
  type TransitionOptions,
  type MoveNotification,
  type TransitionResult,
  type CreateTaskInput,
  type CreateTaskResult,
  type ExitOutcome,
  type TaskEdit,
  type TaskRequest,
  type RequestResult,
  type ActionFailure,
} from './engine.js';
export {
  createHooks,
  type OrangeHooks,
  type ActionContext,
  type Cause,
  type TaskEvent,
  type TransitionEvent,
  type AfterTransitionEvent,
  type LockedTaskWrites,
  type HookFailedEvent,
  type AgentEvent,
  type CrashEvent,
  type AutoAdvancedEvent,
  type PromptEvent,
  type RespawnEvent,
  type RefusalCheck,
  type TransitionRefusedEvent,
  type NotificationEvent,
  type PullRequestEvent,
  type PullRequestFeedback,
  type PullRequestCheck,
  type PullRequestReview,
  type PullRequestReviewComment,
  type ClassifyEvent,
  type Classification,
  type PipelineNoticeEvent,
} from './hooks.js';
export {
  Notifications,
  NotificationsConfigSchema,
  NOTIFICATION_PRIORITIES,
  STATUS_PRIORITIES,
  OUTBOX_GRACE_MS,
  type Notification,
  type NotificationDelivery,
  type NotificationInput,
  type NotificationPriority,
  type NotificationTask,
  type NotificationsConfig,
  type Notifier,
} from './notifications.js';
export { NotificationOutbox, type OutboxEntry } from './notification-outbox.js';
export { OutboxDeliverer, type OutboxDeliveryOptions, type OutboxRouting } from './outbox-delivery.js';
export {
  definePlugin,
  parsePluginOptions,
  type OrangePlugin,
  type Runtime,
  type AttachInfo,
  type RuntimeSnapshot,
  type WorkspaceProvider,
  type WorkspaceInfo,
  type DiffStat,
  type GcResult,
  type Harness,
  type HarnessRequest,
  type HarnessCommand,
  type HeadlessRequest,
  type HeadlessRun,
  type HeadlessResult,
  type HeadlessRunner,
  type Scm,
  type MergeOptions,
  type PullRequestState,
  type IssueTracker,
  type TrackedIssue,
  type Slots,
} from './plugin.js';
export { Orange, type OrangeOptions } from './orange.js';
export { noopActions, pluginActions, workflowActions, type NoopActionsOptions } from './noop-actions.js';
export { defineConfig, loadConfig, configSearchStart, configFilesIn, parseConfig, ConfigSchema, CONFIG_SEARCH_PLACES, type OrangeConfig, type OrangeConfigInput, type LoadedConfig, type LoadConfigOptions } from './config.js';
export type { SharedModules } from './config-loaders.js';
export { Logger, LOG_LEVELS, LOG_ROTATE_BYTES, type LogLevel, type LogRecord } from './log.js';
export { OrangePaths } from './store/paths.js';
export { TaskStore, TASK_FILE_MAX_BYTES, type UnreadableTask, type ListedTask, type TaskInspection, type TaskStoreOptions } from './store/task-store.js';
export { FREE_FIELDS, type FreeField, type FieldMismatch } from './store/task-state.js';
export { ProjectStore, ProjectSchema, type Project, type ProjectInput } from './store/projects.js';
export { parseTaskFile, serializeTask, newTaskMeta } from './store/task-file.js';
export { appendHistory, readHistory, ledgerStatus, type HistoryEvent } from './store/history.js';
export { listTranscripts, pruneTranscripts, TRANSCRIPT_ROTATE_BYTES, TRANSCRIPTS_KEPT, type Transcript } from './store/transcripts.js';
export { writeFileAtomic } from './store/atomic.js';
export { withLock } from './store/lock.js';
export {
  newTaskId,
  newSpawnId,
  projectNameProblem,
  branchNameProblem,
  assertProjectName,
  assertBranchName,
  assertTaskId,
} from './store/names.js';
export { Monitor, type MonitorOptions, type MonitorReport, type PassOptions, type PullRequestApplied, type PullRequestSync } from './monitor.js';
export { readPullRequest, pullRequestReading, type PullRequestReading } from './pull-request-reading.js';
export { MonitorLease, deferredTo, outranks, type MonitorHolder } from './monitor-lease.js';
export { checkCancel, cancelTask, cancelStatus, cancelMove, cancelQuestion, type CancelCheck, type CancelKind, type CancelMove, checkDelete, deleteTask, checkMerge, mergeTask, openPullRequest, requestChanges, type MergeCheck, type MergeOutcome, type MergeRequest } from './task-operations.js';
export { findExecutable } from './executable.js';
export { headlessData } from './headless-data.js';
export { inlineText, blockText, oneLineSummary, terminalJson } from './terminal-text.js';
export { onSignals } from './signal-listeners.js';
export { listProcesses, processesInside, taskProcessesInside, TASK_ID_VARIABLE, isRunning, processStart, processTree, withAncestors, type ProcessEntry } from './process-table.js';
export { stopProcesses, type StopTimings } from './process-stop.js';
export { simulateWorkflow, type SimulationResult, type SimulationStep } from './simulation/simulate.js';
export { parseScript, SCRIPT_COMMANDS, type ScriptEvent, type ScriptStep } from './simulation/script.js';
export { MemoryTaskStore, MemoryProjectStore, SilentLogger } from './simulation/memory-stores.js';
export { isJsonObject, readHarnessSettings, type JsonObject } from './harness-settings-file.js';
export { relativeTime } from './relative-time.js';
