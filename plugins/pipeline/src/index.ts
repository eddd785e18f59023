export { pipeline, pipelineOf, DRIVER_HARNESS, type PipelineInstance } from './pipeline.js';
export { PipelineOptionsSchema, parsePipelineOptions, type PipelineOptions, type PipelineSettings } from './options.js';
export { runPipeline } from './driver.js';
export { checkpointOf, checkpointPath, writeCheckpoint, type Checkpoint } from './checkpoint.js';
export { pipelineFields, tiersFor, routeFor, afterFailure, afterPhaseRun, afterChecks, nextTier, overBudget, resumeTarget, tiersReached, breakerToReach, type PipelineFields, type PhaseRun } from './policy.js';
export { cancelReport, cancelReportLines, inProgress, type CancelReport } from './cancel-report.js';
export { clarifyTask, resumeTask, respawnTask } from './operator.js';
export { pipelineConfigNotes } from './config-notes.js';
