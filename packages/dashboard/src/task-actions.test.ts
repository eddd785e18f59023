import { isOrangeError, type Orange, type TaskRef, type TransitionResult } from '@orange/core';
import { describe, expect, it, vi } from 'vitest';
import { OrangeActions } from './task-actions.js';

const ref: TaskRef = { project: 'app', id: 'V1StGXR8Z5jdHi6BmyT4a' };
const orange = {} as Orange;

describe('answering a task awaiting clarification', () => {
  it("runs the pipeline's clarifyTask it was handed, with the answer as typed, and says what moved", async () => {
    const clarifyTask = vi.fn(async (): Promise<TransitionResult> => ({ from: 'awaiting_clarification', to: 'classifying', changed: true, failedHooks: [], failures: [] }) as unknown as TransitionResult);
    const line = await new OrangeActions(orange, { clarifyTask }).clarify(ref, 'the login form');
    expect(clarifyTask).toHaveBeenCalledWith(orange, ref, 'the login form');
    expect(line).toBe(`task ${ref.id}: awaiting_clarification → classifying`);
  });

  it('refuses, naming the command to run, when it was opened without that call', async () => {
    const error = await new OrangeActions(orange).clarify(ref, 'the login form').catch((e: unknown) => e);
    expect(isOrangeError(error) && `${error.code}: ${error.message}`).toBe(
      `E_NOT_ALLOWED: this dashboard was opened without the pipeline plugin's clarifyTask, so it cannot answer task ${ref.id}; use: orange task clarify ${ref.id} "answer"`,
    );
  });
});
