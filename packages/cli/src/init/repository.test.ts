import { describe, expect, it } from 'vitest';
import { freeProjectName } from './repository.js';

describe('freeProjectName', () => {
  it('keeps a free name, and numbers a taken one from 2', () => {
    expect(freeProjectName('app', new Set(['web']))).toBe('app');
    expect(freeProjectName('app', new Set(['app']))).toBe('app-2');
    expect(freeProjectName('app', new Set(['app', 'app-2', 'app-3']))).toBe('app-4');
  });

  it('stays within 64 characters and never ends the base in a dash before the number', () => {
    const long = `${'a'.repeat(61)}-bc`;
    const name = freeProjectName(long, new Set([long]));
    expect(name).toHaveLength(63);
    expect(name).toBe(`${'a'.repeat(61)}-2`);
  });
});
