import { basename } from 'node:path';
import { z } from 'zod';
import { OrangeError } from '../errors/index.js';
import { TaskMetaSchema } from '../task/index.js';
import { writeFileAtomic } from './atomic.js';
import { readRegularFileSync } from './regular-file.js';
import { FREE_FIELDS, type FreeField, type TaskState } from './task-state.js';

const FileIdentitySchema = z.object({ ino: z.number(), size: z.number(), mtimeMs: z.number() });

const TaskStateSchema = z.object({
  v: z.literal(1),
  meta: TaskMetaSchema,
  renders: z.array(z.object({ h: z.string(), free: z.object(Object.fromEntries(FREE_FIELDS.map((k) => [k, z.unknown()])) as Record<FreeField, z.ZodUnknown>) })),
  rendered: FileIdentitySchema.nullable().default(null),
});

const STATE_MAX_BYTES = 1024 * 1024;

/**
 * Reads a task's `state.json`; null when the task has none (written by an older Orange). Read
 * synchronously: a small file, and a listing that rebuilds its index reads thousands of them.
 */
export function readTaskState(path: string, taskDir: string, what: string): TaskState | null {
  const file = readRegularFileSync(path, { maxBytes: STATE_MAX_BYTES, within: taskDir, what });
  if (file === null) return null;
  let json: unknown;
  try {
    json = JSON.parse(file.text);
  } catch {
    throw new OrangeError('E_UNREADABLE', `${what} is not valid JSON (edited by hand?); run: orange task repair ${taskIdOf(taskDir)}`);
  }
  const parsed = TaskStateSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new OrangeError('E_UNREADABLE', `${what}: ${issue?.path.join('.') || 'state'} ${issue?.message ?? 'is invalid'}; run: orange task repair ${taskIdOf(taskDir)}`);
  }
  return parsed.data as unknown as TaskState;
}

/** The task's id: the name of its folder. */
function taskIdOf(taskDir: string): string {
  return basename(taskDir);
}

/** Writes a task's `state.json` atomically. */
export async function writeTaskState(path: string, state: TaskState): Promise<void> {
  await writeFileAtomic(path, `${JSON.stringify(state)}\n`);
}
