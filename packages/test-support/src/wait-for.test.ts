import { describe, expect, it } from 'vitest';
import { waitFor } from './wait-for.js';

describe('waitFor', () => {
  it('returns the first truthy value of the check, treating a throw as "not yet"', async () => {
    let looks = 0;
    const value = await waitFor('the third look', () => {
      looks += 1;
      if (looks === 1) throw new Error('not written yet');
      return looks === 3 ? { looks } : null;
    }, { everyMs: 1 });
    expect(value).toEqual({ looks: 3 });
  });

  it('at the deadline says what it waited for, the last error and what explain adds', async () => {
    const waited = waitFor('the file to appear', () => Promise.reject(new Error('ENOENT')), { timeoutMs: 30, everyMs: 5, explain: () => 'the folder holds: (nothing)' });
    await expect(waited).rejects.toThrow(/^timed out after 30 ms waiting for the file to appear; the last check threw: ENOENT\nthe folder holds: \(nothing\)$/);
  });
});
