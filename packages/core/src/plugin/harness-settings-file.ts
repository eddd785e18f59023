import { readFile } from 'node:fs/promises';
import { OrangeError } from '../errors/index.js';

/** A JSON object as read from an agent CLI's settings file. */
export type JsonObject = Record<string, unknown>;

/** True for a plain JSON object (not null, not an array). */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * An agent CLI's JSON settings file that a harness adds Orange's permissions to (Claude Code's
 * `.claude/settings.local.json`, opencode's `opencode.json`): `{}` when it does not exist yet.
 * A file that is not a JSON object is refused (E_HARNESS) rather than overwritten, which would
 * lose the user's settings.
 */
export async function readHarnessSettings(file: string): Promise<JsonObject> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new OrangeError('E_HARNESS', `${file} is not valid JSON; fix or delete it so Orange can add its permissions`);
  }
  if (!isJsonObject(value)) throw new OrangeError('E_HARNESS', `${file} must hold a JSON object; fix or delete it so Orange can add its permissions`);
  return value;
}
