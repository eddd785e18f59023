/** Exit codes: 0 ok, 1 refused or failed, 2 bad usage. */
export const EXIT_REFUSED = 1;
export const EXIT_USAGE = 2;

/** The one error format: a sentence on stderr, or `{"error","code"}` on stdout with --json. */
export function writeError(message: string, code: string, json: boolean): void {
  if (json) process.stdout.write(`${JSON.stringify({ error: message, code })}\n`);
  else process.stderr.write(`orange: ${message}\n`);
}
