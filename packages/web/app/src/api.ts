import type { ActionResult, ApiError, CreateTaskRequest, CreateTaskResult, TaskAction } from '../../src/protocol';
import { taskPath } from './route';

/** A refusal or failure from the server: the engine's code and its one sentence. */
export class RequestError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'RequestError';
  }

  /** As the status line shows it: `E_ILLEGAL_TRANSITION: task … cannot …`. */
  get line(): string {
    return `${this.code}: ${this.message}`;
  }
}

/** Any error as one status line. */
export function errorLine(error: unknown): string {
  if (error instanceof RequestError) return error.line;
  if (error instanceof Error) return `E_NETWORK: ${error.message}`;
  return `E_NETWORK: ${String(error)}`;
}

async function refusal(response: Response): Promise<RequestError> {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as Partial<ApiError>;
    if (body.error && typeof body.error.code === 'string') return new RequestError(body.error.code, String(body.error.message ?? ''), response.status);
  } catch {
    // Not JSON: the status line says what came.
  }
  const code = response.status === 401 ? 'E_AUTH' : response.status === 404 ? 'E_NOT_FOUND' : `E_HTTP_${response.status}`;
  const message = response.status === 401 ? 'not signed in: open the URL `orange web` printed (with its token) again' : text.trim().slice(0, 200) || response.statusText || 'request failed';
  return new RequestError(code, message, response.status);
}

/** GET a JSON answer. */
export async function getJson<T>(path: string, signal?: AbortSignal): Promise<T> {
  const response = await fetch(path, { headers: { Accept: 'application/json' }, credentials: 'same-origin', signal });
  if (!response.ok) throw await refusal(response);
  return (await response.json()) as T;
}

/** GET a text/plain answer. */
export async function getText(path: string, signal?: AbortSignal): Promise<string> {
  const response = await fetch(path, { headers: { Accept: 'text/plain' }, credentials: 'same-origin', signal });
  if (!response.ok) throw await refusal(response);
  return response.text();
}

async function postJson<T>(path: string, body: unknown): Promise<T> {
  const response = await fetch(path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    credentials: 'same-origin',
    body: JSON.stringify(body),
  });
  if (!response.ok) throw await refusal(response);
  return (await response.json()) as T;
}

/** Runs one action on a task (`POST /api/tasks/:project/:id/:action`). */
export function runAction(ref: { readonly project: string; readonly id: string }, action: TaskAction): Promise<ActionResult> {
  return postJson<ActionResult>(`${taskPath(ref)}/${action.action}`, action);
}

/** Creates a task (`POST /api/tasks`). */
export function createTask(request: CreateTaskRequest): Promise<CreateTaskResult> {
  return postJson<CreateTaskResult>('/api/tasks', request);
}
