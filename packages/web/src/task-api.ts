import type { IncomingMessage, ServerResponse } from 'node:http';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { isOrangeError, listTranscripts, OrangeError, pullRequestReading, readPullRequest, type Orange, type TaskRef, type TransitionResult } from '@orange/core';
import type { DashboardActions, TaskSource } from '@orange/dashboard/fleet';
import { z } from 'zod';
import { boardRow } from './board-snapshot.js';
import type { ActionResult, ApiError, CreateTaskResult, DiffDetail, PullRequestDetail, SessionInfo, TaskDetail } from './protocol.js';

/** Engine calls of the pipeline plugin the page offers (clarify, resume), handed over by the CLI. */
export interface WebOperators {
  readonly clarifyTask?: (orange: Orange, ref: TaskRef, answer: string) => Promise<TransitionResult>;
  readonly resumeTask?: (orange: Orange, ref: TaskRef, options: { budgetUsd?: number }) => Promise<TransitionResult>;
}

export interface TaskApiContext {
  readonly orange: Orange;
  readonly actions: DashboardActions;
  readonly feed: TaskSource;
  readonly operators: WebOperators;
  readonly project: string | null;
  readonly version: string;
  /** After an action, re-reads the task at once (the board does not wait for the file watch). */
  readonly refresh: (ref: TaskRef) => void;
}

/** Biggest JSON body taken (a summary, an answer, instructions). */
const BODY_LIMIT = 256 * 1024;

const TASK_ID = /^[0-9A-Za-z]{21}$/;

const CreateBody = z.object({
  project: z.string().min(1),
  summary: z.string(),
  branch: z.string().default(''),
  harness: z.string().min(1).nullable().default(null),
  status: z.enum(['pending', 'reviewing']).default('pending'),
});

const ActionBody = z.discriminatedUnion('action', [
  z.object({ action: z.literal('spawn') }),
  z.object({ action: z.literal('respawn') }),
  z.object({ action: z.literal('request-changes'), instructions: z.string() }),
  z.object({ action: z.literal('check-merge') }),
  z.object({ action: z.literal('merge'), force: z.boolean() }),
  z.object({ action: z.literal('pr') }),
  z.object({ action: z.literal('sync-pr') }),
  z.object({ action: z.literal('check-cancel') }),
  z.object({ action: z.literal('cancel') }),
  z.object({ action: z.literal('check-delete') }),
  z.object({ action: z.literal('delete') }),
  z.object({ action: z.literal('clarify'), answer: z.string() }),
  z.object({ action: z.literal('resume'), budgetUsd: z.number().positive().finite().optional() }),
]);

type Route =
  | { readonly kind: 'session' }
  | { readonly kind: 'create' }
  | { readonly kind: 'task'; readonly ref: TaskRef; readonly part: 'detail' | 'diff' | 'pr' | 'transcript' }
  | { readonly kind: 'action'; readonly ref: TaskRef; readonly action: string };

/**
 * Answers the JSON API under `/api/` (everything but the event stream and the terminals). Every
 * action is the engine call the CLI and the terminal dashboard make (`OrangeActions`), so it is
 * refused the same way, with the same one-line error; a refusal is `{error: {code, message}}`.
 */
export async function answerApi(context: TaskApiContext, request: IncomingMessage, response: ServerResponse, url: URL): Promise<void> {
  try {
    const route = routeOf(request.method ?? 'GET', url.pathname);
    if (!route) throw new OrangeError('E_USAGE', `no such API call: ${request.method} ${url.pathname}`);
    switch (route.kind) {
      case 'session':
        return sendJson(response, 200, await session(context));
      case 'create':
        return sendJson(response, 200, await create(context, CreateBody.parse(await readJson(request))));
      case 'action':
        return sendJson(response, 200, await act(context, route.ref, route.action, await readJson(request)));
      case 'task':
        if (route.part === 'detail') return sendJson(response, 200, await detail(context, route.ref));
        if (route.part === 'diff') return sendJson(response, 200, await diff(context, route.ref));
        if (route.part === 'pr') return sendJson(response, 200, await pullRequest(context, route.ref));
        return await transcript(context, route.ref, url, response);
    }
  } catch (error) {
    const [status, body] = errorAnswer(error);
    if (!response.headersSent) sendJson(response, status, body);
    else response.destroy();
  }
}

function routeOf(method: string, path: string): Route | null {
  const parts = path.split('/').slice(1).map(decodePart);
  if (parts[0] !== 'api') return null;
  if (method === 'GET' && parts.length === 2 && parts[1] === 'session') return { kind: 'session' };
  if (parts[1] !== 'tasks') return null;
  if (method === 'POST' && parts.length === 2) return { kind: 'create' };
  const [project, id, last] = [parts[2], parts[3], parts[4]];
  if (!project || !id || parts.length > 5) return null;
  if (!TASK_ID.test(id)) throw new OrangeError('E_INVALID_INPUT', `"${id}" is not a task id (21 letters and digits)`);
  const ref = { project, id };
  if (method === 'GET') {
    if (last === undefined) return { kind: 'task', ref, part: 'detail' };
    if (last === 'diff' || last === 'pr' || last === 'transcript') return { kind: 'task', ref, part: last };
    return null;
  }
  if (method === 'POST' && last !== undefined) return { kind: 'action', ref, action: last };
  return null;
}

function decodePart(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new OrangeError('E_INVALID_INPUT', `"${part}" is not a valid part of an address`);
  }
}

async function session(context: TaskApiContext): Promise<SessionInfo> {
  const { projects, harnesses } = await context.actions.choices();
  return { project: context.project, projects, harnesses, version: context.version };
}

async function create(context: TaskApiContext, body: z.infer<typeof CreateBody>): Promise<CreateTaskResult> {
  const { message, ref } = await context.actions.create(body);
  context.refresh(ref);
  return { message, project: ref.project, id: ref.id };
}

async function act(context: TaskApiContext, ref: TaskRef, name: string, raw: unknown): Promise<ActionResult> {
  const parsed = ActionBody.safeParse(raw);
  if (!parsed.success || parsed.data.action !== name) throw new OrangeError('E_INVALID_INPUT', `the body of ${name} must be {"action":"${name}", …} as the API describes`);
  const { actions, operators, orange } = context;
  const action = parsed.data;
  const done = (message: string, extra: Omit<ActionResult, 'message'> = {}): ActionResult => {
    context.refresh(ref);
    return { message, ...extra };
  };
  switch (action.action) {
    case 'spawn':
      return done(await actions.spawn(ref));
    case 'respawn':
      return done(await actions.respawn(ref));
    case 'request-changes':
      if (action.instructions.trim() === '') throw new OrangeError('E_INVALID_INPUT', 'say what to change: the instructions are empty');
      return done(await actions.requestChanges(ref, action.instructions));
    case 'check-merge': {
      const { forced } = await actions.checkMerge(ref);
      return { message: forced ? `task ${ref.id} has not passed review: merging now is a force-merge` : `task ${ref.id} can be merged`, forced };
    }
    case 'merge':
      return done(await actions.merge(ref, action.force));
    case 'pr': {
      const { url, created } = await actions.pullRequest(ref);
      return done(created ? `opened pull request ${url}` : `task ${ref.id} has pull request ${url}`, { url });
    }
    case 'sync-pr': {
      const { applied, read } = await actions.syncPullRequest(ref);
      return done(applied ?? (read ? `pull request of ${ref.id}: ${read.state ?? 'not found'}, nothing to apply` : `task ${ref.id}: its pull request could not be read`));
    }
    case 'check-cancel': {
      const check = await actions.checkCancel(ref);
      return { message: check.question, confirm: check.question };
    }
    case 'cancel':
      return done(await actions.cancel(ref));
    case 'check-delete':
      await actions.checkDelete(ref);
      return { message: `delete task ${ref.id} and its files? This cannot be undone.`, confirm: `delete task ${ref.id} and its files? This cannot be undone.` };
    case 'delete':
      return done(await actions.delete(ref));
    case 'clarify':
      return done(await actions.clarify(ref, action.answer));
    case 'resume': {
      if (!operators.resumeTask) throw new OrangeError('E_NOT_ALLOWED', `this server was started without the pipeline plugin's resumeTask; use: orange task resume ${ref.id}`);
      const result = await operators.resumeTask(orange, ref, action.budgetUsd === undefined ? {} : { budgetUsd: action.budgetUsd });
      return done(`task ${ref.id}: ${result.from} → ${result.to}${result.failedHooks.length ? ` (failed: ${result.failedHooks.join(', ')})` : ''}`);
    }
  }
}

async function detail(context: TaskApiContext, ref: TaskRef): Promise<TaskDetail> {
  const { orange, feed } = context;
  const task = await orange.store.read(ref.project, ref.id);
  const [history, transcripts] = await Promise.all([orange.store.history(ref.project, ref.id), listTranscripts(orange.paths, ref.project, ref.id)]);
  const snapshot = feed.snapshot();
  const row = snapshot.rows.get(ref.id);
  return {
    row: row && row.meta.project === ref.project ? boardRow(row, snapshot.revisions.get(ref.id) ?? 0) : null,
    meta: { ...task.meta },
    body: task.body,
    history,
    transcripts: transcripts.map((t) => ({ role: t.role, spawn: t.spawn })),
  };
}

async function diff(context: TaskApiContext, ref: TaskRef): Promise<DiffDetail> {
  const { meta } = await context.orange.store.read(ref.project, ref.id);
  const [stat, text] = await Promise.all([context.actions.diffStat(meta), context.actions.diff(meta)]);
  return { stat, diff: text };
}

async function pullRequest(context: TaskApiContext, ref: TaskRef): Promise<PullRequestDetail> {
  const { orange } = context;
  const task = await orange.store.read(ref.project, ref.id);
  if (!task.meta.pr_url) return { url: null, state: null, checks: null, error: null };
  const scm = orange.maybeSlot('scm');
  if (!scm) return { url: task.meta.pr_url, state: null, checks: null, error: 'no SCM plugin is configured' };
  try {
    const { state, feedback } = await readPullRequest(scm, task, await orange.projects.get(ref.project));
    const reading = pullRequestReading(task, state, feedback);
    return { url: reading.url || task.meta.pr_url, state: reading.state, checks: reading.checks?.map((c) => ({ name: c.name, state: c.state, url: c.url })) ?? null, error: null };
  } catch (error) {
    return { url: task.meta.pr_url, state: null, checks: null, error: error instanceof Error ? error.message.split('\n')[0]! : String(error) };
  }
}

/** One transcript as it was recorded (rotated part first), as text/plain: the page strips its escapes. */
async function transcript(context: TaskApiContext, ref: TaskRef, url: URL, response: ServerResponse): Promise<void> {
  const { orange } = context;
  await orange.store.read(ref.project, ref.id);
  const all = await listTranscripts(orange.paths, ref.project, ref.id);
  const role = url.searchParams.get('role');
  const spawn = url.searchParams.get('spawn');
  const found = [...all].reverse().find((t) => (role === null || t.role === role) && (spawn === null || t.spawn === spawn));
  if (!found) throw new OrangeError('E_INVALID_INPUT', `task ${ref.id} has no transcript${role ? ` of its ${role}` : ''}${spawn ? ` for spawn ${spawn}` : ''}`);
  response.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
  for (const file of [found.rotated, found.file]) {
    if (!file || !(await stat(file).then((s) => s.isFile(), () => false))) continue;
    await new Promise<void>((resolve, reject) => {
      const stream = createReadStream(file);
      stream.on('error', reject);
      stream.on('end', resolve);
      stream.pipe(response, { end: false });
    });
  }
  response.end();
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > BODY_LIMIT) throw new OrangeError('E_INVALID_INPUT', `the request body is over ${BODY_LIMIT} bytes`);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new OrangeError('E_INVALID_INPUT', 'the request body is not JSON');
  }
}

export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', 'Content-Length': Buffer.byteLength(text) });
  response.end(text);
}

const NOT_FOUND = new Set(['E_TASK_NOT_FOUND', 'E_PROJECT_NOT_FOUND']);
const CONFLICT = new Set(['E_LOCKED', 'E_ILLEGAL_TRANSITION', 'E_GUARD_FAILED', 'E_GATE_FAILED', 'E_VETOED', 'E_NOT_ALLOWED', 'E_CONFIRM', 'E_TASK_EXISTS', 'E_PROJECT_EXISTS', 'E_POOL_EXHAUSTED', 'E_TAMPERED']);

/** An error as the page shows it: the engine's code and its one line, with a status that fits. */
export function errorAnswer(error: unknown): [number, ApiError] {
  if (error instanceof z.ZodError) {
    const issue = error.issues[0];
    return [400, { error: { code: 'E_INVALID_INPUT', message: issue ? `${issue.path.join('.') || 'body'}: ${issue.message}` : 'invalid request' } }];
  }
  if (isOrangeError(error)) {
    const status = NOT_FOUND.has(error.code) ? 404 : CONFLICT.has(error.code) ? 409 : ['E_INVALID_INPUT', 'E_USAGE', 'E_INVALID_NAME', 'E_FORBIDDEN'].includes(error.code) ? 400 : 500;
    return [status, { error: { code: error.code, message: error.message.split('\n')[0]! } }];
  }
  return [500, { error: { code: 'E_INTERNAL', message: error instanceof Error ? error.message.split('\n')[0]! : String(error) } }];
}
