import { createInterface } from 'node:readline/promises';
import { inlineText, OrangeError } from '@orange/core';
import { servedCall } from '../gateway/served-call.js';

/**
 * Asks a yes/no question on the terminal. `--yes` skips it; without a terminal it refuses
 * instead of waiting for an answer that can never come (an agent or a script called us).
 */
export async function confirm(question: string, yes: boolean): Promise<void> {
  if (yes) return;
  // A call the gateway serves has no terminal here (a person at one runs the CLI itself).
  if (servedCall() || !process.stdin.isTTY || !process.stderr.isTTY) {
    throw new OrangeError('E_CONFIRM', `${question.replace(/\?$/, '')} needs confirmation and there is no terminal to ask; pass --yes`);
  }
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = (await rl.question(`${inlineText(question)} [y/N] `)).trim().toLowerCase();
    if (answer !== 'y' && answer !== 'yes') throw new OrangeError('E_CONFIRM', 'not confirmed; nothing was changed');
  } finally {
    rl.close();
  }
}
