/**
 * Every error Orange raises on purpose carries a stable `code` and one human sentence.
 * The CLI maps them to exit codes and `--json`; anything else is a bug and may show a stack.
 */
export type ErrorCode =
  | 'E_ILLEGAL_TRANSITION'
  | 'E_GUARD_FAILED'
  | 'E_GATE_FAILED'
  | 'E_VETOED'
  | 'E_FORBIDDEN'
  | 'E_TAMPERED'
  | 'E_FRONTMATTER'
  | 'E_TASK_NOT_FOUND'
  | 'E_TASK_EXISTS'
  | 'E_PROJECT_NOT_FOUND'
  | 'E_PROJECT_EXISTS'
  | 'E_INVALID_NAME'
  | 'E_INVALID_INPUT'
  | 'E_WORKFLOW_INVALID'
  | 'E_CONFIG'
  | 'E_HOME'
  | 'E_PLUGIN_OPTIONS'
  | 'E_NO_PROVIDER'
  | 'E_POOL_EXHAUSTED'
  | 'E_WORKSPACE'
  | 'E_RUNTIME'
  | 'E_SCM'
  | 'E_HARNESS'
  | 'E_LOCKED'
  | 'E_NOT_ALLOWED'
  | 'E_CONFIRM'
  | 'E_UNREADABLE'
  | 'E_USAGE';

/** An expected failure: a refusal or bad input, reported as one sentence. */
export class OrangeError extends Error {
  readonly code: ErrorCode;
  /** Extra structured facts for `--json` output and logs. */
  readonly details: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = 'OrangeError';
    this.code = code;
    this.details = details;
  }
}

/** A transition was refused; nothing was changed. */
export class TransitionRefused extends OrangeError {
  constructor(
    code: 'E_ILLEGAL_TRANSITION' | 'E_FORBIDDEN' | 'E_GUARD_FAILED' | 'E_GATE_FAILED' | 'E_VETOED' | 'E_TAMPERED',
    readonly from: string,
    readonly to: string,
    reason: string,
  ) {
    super(code, `${from} → ${to} refused: ${reason}`, { from, to, reason });
    this.name = 'TransitionRefused';
  }
}

/** A workflow definition failed validation; `problems` lists every defect found. */
export class WorkflowInvalid extends OrangeError {
  constructor(
    readonly workflow: string,
    readonly problems: string[],
  ) {
    super(
      'E_WORKFLOW_INVALID',
      `workflow "${workflow}" is invalid: ${problems.join('; ')}`,
      { workflow, problems },
    );
    this.name = 'WorkflowInvalid';
  }
}

/** True when `error` is one of Orange's expected errors. */
export function isOrangeError(error: unknown): error is OrangeError {
  if (error instanceof OrangeError) return true;
  // A config or plugin may load its own copy of @orange/core; recognise its errors too.
  return (
    error instanceof Error &&
    typeof (error as { code?: unknown }).code === 'string' &&
    /^E_[A-Z_]+$/.test((error as unknown as { code: string }).code) &&
    typeof (error as { details?: unknown }).details === 'object'
  );
}
