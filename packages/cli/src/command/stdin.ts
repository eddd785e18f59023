import { BUFFERED_STDIN } from '@orange/core';
import { servedCall } from '../gateway/served-call.js';

/**
 * Reads all of standard input (for `--context -`). A served call's came with its request; a call
 * that tried the gateway and fell back to the CLI finds what it read already in BUFFERED_STDIN.
 */
export async function readStdin(): Promise<string> {
  const call = servedCall();
  if (call) return call.stdin;
  const buffered = (globalThis as Record<symbol, unknown>)[BUFFERED_STDIN];
  if (typeof buffered === 'string') return buffered;
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
