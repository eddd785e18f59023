// The public API of @orange/core: each room's door, re-exported; nothing else.
export { OrangeError, TransitionRefused, WorkflowInvalid, isOrangeError, type ErrorCode } from './errors/index.js';
export { parseGuard, evaluateGuard, guardsOverlap, type Guard, type GuardOperator, type GuardLiteral, type GuardParse } from './workflow/index.js';
export { parseSections, setSection, sectionNameProblem, strayHeading, inertHeadings, type Sections } from './task/index.js';
export { builtinGates, reviewVerdict, gateContext, type Gate, type GateContext, type GateResult, type ReviewVerdict } from './workflow/index.js';
export { TaskMetaSchema, TASK_ID_PATTERN, type Task, type TaskMeta, type AgentRole } from './task/index.js';
export {
  defineWorkflow,
  WorkflowSchema,
  type WorkflowInput,
  type WorkflowDefinition,
  type StateDefinition,
  type TransitionDefinition,
  type ExitRule,
  type PromptRef,
} from './workflow/index.js';
export { Workflow, validateWorkflow, type Transition, type WorkflowVocabulary } from './workflow/index.js';
export { defaultWorkflow } from './workflow/index.js';
export { classicWorkflow } from './workflow/index.js';
export { pipelineWorkflow } from './workflow/index.js';
export { renderPrompt } from './workflow/index.js';
export { decideExit, type ExitDecision } from './workflow/index.js';
export { isHeld } from './store/index.js';
export { Engine } from './engine/index.js';
export {
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
} from './plugin/index.js';
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
  type AgentCommand,
  type AgentCommandEvent,
  type SweepEvent,
  type HarnessReplacement,
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
} from './plugin/index.js';
export { Notifications, OUTBOX_GRACE_MS, type NotificationDelivery } from './notifications/index.js';
export { NotificationsConfigSchema, NOTIFICATION_PRIORITIES, STATUS_PRIORITIES, type NotificationPriority, type NotificationsConfig } from './config/index.js';
export type { Notification, NotificationInput, NotificationTask, Notifier, OutboxDeliveryOptions } from './plugin/index.js';
export { NotificationOutbox, type OutboxEntry } from './notifications/index.js';
export { OutboxDeliverer, type OutboxRouting } from './notifications/index.js';
export {
  definePlugin,
  parsePluginOptions,
  type OrangePlugin,
  type Runtime,
  type AttachInfo,
  type RuntimeSnapshot,
  type TerminalListener,
  type TerminalSize,
  type TerminalStream,
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
} from './plugin/index.js';
export { Orange, type OrangeOptions } from './orange.js';
export { noopActions, pluginActions, workflowActions, type NoopActionsOptions } from './plugin/index.js';
export { loadConfig, configSearchStart, configFilesIn, parseConfig, ConfigSchema, CONFIG_SEARCH_PLACES, type OrangeConfig, type ConfigInput, type PluginEntry, type LoadedConfig, type LoadConfigOptions } from './config/index.js';
export { defineConfig, type OrangeConfigInput } from './plugin/index.js';
export type { SharedModules } from './config/index.js';
export { Logger, LOG_LEVELS, LOG_ROTATE_BYTES, type LogLevel, type LogRecord } from './log/index.js';
export { OrangePaths } from './store/index.js';
export { TaskStore, TASK_FILE_MAX_BYTES, type UnreadableTask, type ListedTask, type TaskInspection, type TaskStoreOptions } from './store/index.js';
export { FREE_FIELDS, type FreeField, type FieldMismatch } from './store/index.js';
export { ProjectStore, ProjectSchema, type Project, type ProjectInput } from './store/index.js';
export { parseTaskFile, serializeTask, newTaskMeta } from './store/index.js';
export { appendHistory, readHistory, ledgerStatus, type HistoryEvent } from './store/index.js';
export { listTranscripts, pruneTranscripts, TRANSCRIPT_ROTATE_BYTES, TRANSCRIPTS_KEPT, type Transcript } from './store/index.js';
export { writeFileAtomic } from './store/index.js';
export { openRegularFile, readRegularFileSync, type OpenedFile, type RegularFileOptions } from './store/index.js';
export { withLock } from './store/index.js';
export {
  newTaskId,
  newSpawnId,
  projectNameProblem,
  branchNameProblem,
  assertProjectName,
  assertBranchName,
  assertTaskId,
} from './store/index.js';
export { Monitor, type MonitorOptions, type MonitorReport, type PassOptions, type PullRequestApplied, type PullRequestSync } from './monitor/index.js';
export { readPullRequest, pullRequestReading, type PullRequestReading } from './monitor/index.js';
export { MonitorLease, deferredTo, outranks, type MonitorHolder } from './monitor/index.js';
export { personCommand } from './engine/index.js';
export { checkCancel, cancelTask, cancelStatus, cancelMove, cancelQuestion, type CancelCheck, type CancelKind, type CancelMove, checkDelete, deleteTask, checkMerge, mergeTask, openPullRequest, requestChanges, type MergeCheck, type MergeOutcome, type MergeRequest } from './engine/index.js';
export { findExecutable } from './process/index.js';
export { GIT_SAFETY_ARGS, quickRun, type QuickOptions, type QuickResult } from './process/index.js';
export { callOrigin, withCallOrigin, withoutCallOrigin, type CallOrigin } from './process/index.js';
export { BUFFERED_STDIN, callGateway, environmentDifference, exchange, gatewayCaller, gatewayRequest, gatewaySocketFor, GATEWAY_SOCKETS, GATEWAY_VERSION, isShellVariable, REQUEST_MAX_BYTES, SERVED_COMMANDS, requestEnv, servedWords, type GatewayCall, type GatewayCaller, type GatewayOutcome, type GatewayReply, type GatewayRequest } from './gateway/index.js';
export { headlessData, headlessRunEnv, type HeadlessRunEnv } from './plugin/index.js';
export { inlineText, blockText, oneLineSummary, terminalJson } from './text/index.js';
export { onSignals } from './process/index.js';
export { listProcesses, processesInside, taskProcessesInside, TASK_ID_VARIABLE, isRunning, processStart, processTree, withAncestors, type ProcessEntry } from './process/index.js';
export { stopProcesses, type StopTimings } from './process/index.js';
export { simulateWorkflow, type SimulationResult, type SimulationStep } from './simulation/index.js';
export { parseScript, SCRIPT_COMMANDS, type ScriptEvent, type ScriptStep } from './simulation/index.js';
export { MemoryTaskStore, MemoryProjectStore, SilentLogger } from './simulation/index.js';
export { isJsonObject, readHarnessSettings, type JsonObject } from './plugin/index.js';
export { relativeTime } from './text/index.js';
export { callerOf, checkAgentWrite, identityClaim, AGENT_SECRET_VARIABLE, type Caller, type IdentityClaim } from './authority/index.js';
export { AgentIdentities } from './store/index.js';
export { ACTORS, type Actor } from './workflow/index.js';
