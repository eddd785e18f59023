export { pipeline, pipelineOf, DRIVER_HARNESS, type PipelineInstance } from './pipeline.js';
export { PipelineOptionsSchema, parsePipelineOptions, type PipelineOptions, type PipelineSettings } from './options.js';
export { runPipeline } from './driver.js';
export { checkpointOf, checkpointPath, writeCheckpoint, type Checkpoint } from './checkpoint.js';
export { pipelineFields, tiersFor, routeFor, afterFailure, nextTier, overBudget, resumeTarget, type PipelineFields } from './policy.js';
export { cancelReport, cancelReportLines, type CancelReport } from './cancel-report.js';
export { clarifyTask, resumeTask } from './operator.js';
