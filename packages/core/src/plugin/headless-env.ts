import type { HeadlessRequest } from './slots.js';

/** The `ORANGE_*` variables a headless run gets from its own request. */
export interface HeadlessRunEnv {
  readonly ORANGE_PROMPT: string;
  readonly ORANGE_STATUS: string;
  readonly ORANGE_PHASE: string;
  /** Empty for the harness's default model, as the command harness's `{model}` is. */
  readonly ORANGE_MODEL: string;
  readonly ORANGE_RESULT_FILE: string;
  readonly ORANGE_BRANCH: string;
  readonly ORANGE_ROLE: 'worker';
  readonly ORANGE_REVIEW_ROUND: string;
}

/**
 * What a headless run's environment says about the run, from the request its command line is
 * built from, so the two never disagree: the command harness's `{prompt}`, `{status}`, `{phase}`,
 * `{model}`, `{result_file}`, `{branch}`, `{role}` and `{review_round}` are these values. They
 * win over the environment of the process that starts the run: the pipeline driver runs as the
 * task's agent, with the prompt and status it was started with, which are not the run's.
 */
export function headlessRunEnv(request: HeadlessRequest): HeadlessRunEnv {
  return {
    ORANGE_PROMPT: request.prompt,
    ORANGE_STATUS: request.task.status,
    ORANGE_PHASE: request.phase,
    ORANGE_MODEL: request.model ?? '',
    ORANGE_RESULT_FILE: request.resultFile,
    ORANGE_BRANCH: request.task.branch,
    ORANGE_ROLE: 'worker',
    ORANGE_REVIEW_ROUND: String(request.task.review_round),
  };
}
