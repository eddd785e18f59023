import matter from 'gray-matter';
import yaml from 'js-yaml';
import { OrangeError } from '../errors.js';
import { TASK_META_ORDER, TaskMetaSchema, type Task, type TaskMeta } from '../task.js';

const OPENING = /^---[ \t]*\r?\n/;

function refuseEngine(language: string) {
  return () => {
    throw new OrangeError('E_FRONTMATTER', `front matter "---${language}" is not allowed; TASK.md front matter is YAML only`);
  };
}

// gray-matter merges these over its defaults, which include an eval-based `javascript` engine:
// every non-YAML engine is replaced by a refusal so none can ever run.
const ENGINES = {
  yaml: (source: string) => (yaml.load(source, { schema: yaml.CORE_SCHEMA }) ?? {}) as object,
  js: refuseEngine('js'),
  javascript: refuseEngine('javascript'),
  coffee: refuseEngine('coffee'),
  coffeescript: refuseEngine('coffeescript'),
  cson: refuseEngine('cson'),
  json: refuseEngine('json'),
  toml: refuseEngine('toml'),
};

/** Parses TASK.md text. Throws E_FRONTMATTER with the file named on any defect. */
export function parseTaskFile(text: string, file: string): Task {
  if (!text.startsWith('---')) {
    throw new OrangeError('E_FRONTMATTER', `${file} has no YAML front matter (it must start with a "---" line)`);
  }
  if (!OPENING.test(text)) {
    const language = /^---([^\r\n]*)/.exec(text)?.[1]?.trim() ?? '';
    throw new OrangeError('E_FRONTMATTER', `${file}: front matter "---${language}" is not allowed; TASK.md front matter is YAML only`);
  }
  let parsed: matter.GrayMatterFile<string>;
  try {
    parsed = matter(text, { language: 'yaml', engines: ENGINES as never });
  } catch (error) {
    if (error instanceof OrangeError) throw new OrangeError(error.code, `${file}: ${error.message}`);
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new OrangeError('E_FRONTMATTER', `${file} has malformed YAML front matter: ${reason}`);
  }
  const data = parsed.data as unknown;
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw new OrangeError('E_FRONTMATTER', `${file} front matter must be a YAML mapping`);
  }
  const result = TaskMetaSchema.safeParse(data);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue && issue.path.length ? issue.path.join('.') : 'front matter';
    throw new OrangeError('E_FRONTMATTER', `${file}: field "${where}" ${issue?.message ?? 'is invalid'}`);
  }
  return { meta: result.data, body: parsed.content.replace(/^\r?\n/, '') };
}

/** Serializes a task back to TASK.md text, known fields first in a stable order. */
export function serializeTask(task: Task): string {
  const ordered: Record<string, unknown> = {};
  const meta = task.meta as Record<string, unknown>;
  for (const key of TASK_META_ORDER) ordered[key] = meta[key] ?? null;
  for (const key of Object.keys(meta).sort()) if (!(key in ordered)) ordered[key] = meta[key];
  const front = yaml.dump(ordered, { schema: yaml.CORE_SCHEMA, lineWidth: -1, noRefs: true });
  // One blank line always separates front matter and body; parseTaskFile strips exactly one.
  const body = `\n${task.body}`;
  return `---\n${front}---\n${body.endsWith('\n') ? body : `${body}\n`}`;
}

/** Fills defaults for a new task's frontmatter. */
export function newTaskMeta(fields: Pick<TaskMeta, 'id' | 'project' | 'branch' | 'status'> & Partial<TaskMeta>): TaskMeta {
  const now = new Date().toISOString();
  return TaskMetaSchema.parse({ created_at: now, updated_at: now, ...fields });
}
