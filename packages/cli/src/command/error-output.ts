import { terminalJson } from '@orange/core';
import { writeStderr, writeStdout } from '../gateway/served-call.js';
import { clip } from '../output/render.js';

/** Exit codes: 0 ok, 1 refused or failed, 2 bad usage. */
export const EXIT_REFUSED = 1;
export const EXIT_USAGE = 2;

/** Longest message printed for people; --json carries the whole of it. */
const MESSAGE_LIMIT = 1000;

/**
 * The one error format: one safe line on stderr (a message quotes branches, statuses and plugin
 * errors, so it is cleaned and clipped like any cell), or `{"error","code"}` on stdout with --json.
 */
export function writeError(message: string, code: string, json: boolean): void {
  if (json) writeStdout(`${terminalJson({ error: message, code })}\n`);
  else writeStderr(`orange: ${clip(message, MESSAGE_LIMIT)}\n`);
}
