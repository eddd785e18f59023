import { describe, expect, it } from 'vitest';
import { diffLineColour, fileStarts } from './diff-view.js';

describe('the diff view', () => {
  it('colours additions green, removals red, hunks cyan and file headers yellow; the ---/+++ names plain', () => {
    expect(diffLineColour('+const a = 2;')).toBe('green');
    expect(diffLineColour('-const a = 1;')).toBe('red');
    expect(diffLineColour('@@ -1,2 +1,2 @@')).toBe('cyan');
    expect(diffLineColour('diff --git a/x b/x')).toBe('yellow');
    expect(diffLineColour('+++ b/x')).toBeUndefined();
    expect(diffLineColour('--- a/x')).toBeUndefined();
    expect(diffLineColour(' context')).toBeUndefined();
  });

  it('finds where each file starts, for n / N', () => {
    expect(fileStarts(['diff --git a/a b/a', '+x', 'diff --git a/b b/b', '-y'])).toEqual([0, 2]);
  });
});
