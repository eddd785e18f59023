import { servedCall } from '../gateway/served-call.js';

/** Reads all of standard input (for `--context -`); a served call's came with its request. */
export async function readStdin(): Promise<string> {
  const call = servedCall();
  if (call) return call.stdin;
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
