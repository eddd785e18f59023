import yaml from 'js-yaml';
import { OrangeError } from '../errors/index.js';
import { TASK_META_ORDER, TaskMetaSchema, type Task, type TaskMeta } from '../task/index.js';

/** `---` alone on the first line (trailing blanks allowed): YAML front matter. */
const OPENING = /^---[ \t]*\r?\n/;
/** The closing `---` line, searched from the end of the opening line. */
const CLOSING = /(^|\r?\n)---[ \t]*(\r?\n|$)/;

/** TASK.md split into its front matter text and its body, before any YAML is parsed. */
export interface TaskFileParts {
  readonly frontMatter: string;
  readonly body: string;
}

/**
 * Splits TASK.md text at its front matter. Only plain `---` (YAML) is accepted: front matter
 * opened with `---js`, `---json`, … is refused here, so no other language is ever handed a parser.
 * Orange parses YAML itself (js-yaml 4, core schema) instead of through gray-matter: gray-matter's
 * engines include an eval-based JavaScript one, and its bundled js-yaml 3 loads esprima on every
 * call (about 25 ms of every CLI start-up) for types the core schema never allows.
 */
export function splitTaskFile(text: string, file: string): TaskFileParts {
  if (!text.startsWith('---')) {
    throw new OrangeError('E_FRONTMATTER', `${file} has no YAML front matter (it must start with a "---" line)`);
  }
  const opening = OPENING.exec(text);
  if (!opening) {
    const language = /^---([^\r\n]*)/.exec(text)?.[1]?.trim() ?? '';
    throw new OrangeError('E_FRONTMATTER', `${file}: front matter "---${language}" is not allowed; TASK.md front matter is YAML only`);
  }
  const rest = text.slice(opening[0].length);
  const closing = CLOSING.exec(rest);
  if (!closing) throw new OrangeError('E_FRONTMATTER', `${file} has unterminated front matter (no closing "---" line)`);
  const frontMatter = rest.slice(0, closing.index);
  // One blank line always separates front matter and body when Orange writes; exactly one is dropped.
  const body = rest.slice(closing.index + closing[0].length).replace(/^\r?\n/, '');
  return { frontMatter, body };
}

/** Parses front matter text as YAML (core schema: no tags that build code or objects). */
export function parseFrontMatter(frontMatter: string, file: string): Record<string, unknown> {
  let data: unknown;
  try {
    data = frontMatter.trim() === '' ? {} : yaml.load(frontMatter, { schema: yaml.CORE_SCHEMA, json: false });
  } catch (error) {
    const reason = error instanceof Error ? (error.message.split('\n')[0] ?? error.message) : String(error);
    throw new OrangeError('E_FRONTMATTER', `${file} has malformed YAML front matter: ${reason}`);
  }
  if (data === null || data === undefined) return {};
  if (typeof data !== 'object' || Array.isArray(data)) {
    throw new OrangeError('E_FRONTMATTER', `${file} front matter must be a YAML mapping`);
  }
  return data as Record<string, unknown>;
}

export interface MetaDefaults {
  /** For `created_at` / `updated_at` when the file has none (the store passes the file's mtime). */
  readonly time?: string;
}

/**
 * Validates front matter fields into TaskMeta, filling the documented defaults: `branch`
 * `orange-tasks/<id>`, timestamps from `defaults.time` (else now), counters 0, the rest null.
 */
export function taskMetaFrom(data: Record<string, unknown>, file: string, defaults: MetaDefaults = {}): TaskMeta {
  const time = defaults.time ?? new Date().toISOString();
  const filled: Record<string, unknown> = { ...data };
  if (filled.branch === undefined && typeof filled.id === 'string') filled.branch = `orange-tasks/${filled.id}`;
  if (filled.created_at === undefined) filled.created_at = filled.updated_at ?? time;
  if (filled.updated_at === undefined) filled.updated_at = filled.created_at;
  const result = TaskMetaSchema.safeParse(filled);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue && issue.path.length ? issue.path.join('.') : 'front matter';
    throw new OrangeError('E_FRONTMATTER', `${file}: field "${where}" ${issue?.message ?? 'is invalid'}`);
  }
  return result.data;
}

/** Parses TASK.md text. Throws E_FRONTMATTER with the file named on any defect. */
export function parseTaskFile(text: string, file: string, defaults: MetaDefaults = {}): Task {
  const { frontMatter, body } = splitTaskFile(text, file);
  return { meta: taskMetaFrom(parseFrontMatter(frontMatter, file), file, defaults), body };
}

/** The front matter text Orange writes for `meta`: known fields first, in a stable order. */
export function serializeMeta(meta: TaskMeta): string {
  const ordered: Record<string, unknown> = {};
  const fields = meta as Record<string, unknown>;
  for (const key of TASK_META_ORDER) ordered[key] = fields[key] ?? null;
  for (const key of Object.keys(fields).sort()) if (!(key in ordered)) ordered[key] = fields[key];
  return yaml.dump(ordered, { schema: yaml.CORE_SCHEMA, lineWidth: -1, noRefs: true });
}

/** Serializes a task back to TASK.md text. */
export function serializeTask(task: Task): string {
  const body = `\n${task.body}`;
  return `---\n${serializeMeta(task.meta)}---\n${body.endsWith('\n') ? body : `${body}\n`}`;
}

/** Fills defaults for a new task's frontmatter. */
export function newTaskMeta(fields: Pick<TaskMeta, 'id' | 'project' | 'branch' | 'status'> & Partial<TaskMeta>): TaskMeta {
  const now = new Date().toISOString();
  return TaskMetaSchema.parse({ created_at: now, updated_at: now, ...fields });
}
