import { describe, expect, it } from 'vitest';
import { diffLineKind, splitDiff } from './diff-files';

const DIFF = [
  'diff --git a/src/a.ts b/src/a.ts',
  'index 1111111..2222222 100644',
  '--- a/src/a.ts',
  '+++ b/src/a.ts',
  '@@ -1,3 +1,3 @@',
  ' keep',
  '-old',
  '+new',
  '+more',
  'diff --git a/gone.md b/gone.md',
  'deleted file mode 100644',
  '--- a/gone.md',
  '+++ /dev/null',
  '@@ -1 +0,0 @@',
  '--- a removed line that looks like a header',
  '',
].join('\n');

describe('splitDiff', () => {
  it('splits a unified diff per file with the lines each adds and removes', () => {
    const files = splitDiff(DIFF);
    expect(files.map((f) => [f.path, f.added, f.removed, f.lines.length])).toEqual([
      ['src/a.ts', 2, 1, 9],
      ['gone.md', 0, 1, 6],
    ]);
  });

  it('has no files for an empty diff', () => {
    expect(splitDiff('')).toEqual([]);
  });
});

describe('diffLineKind', () => {
  it('colours additions, removals, hunks and headers', () => {
    expect(['+x', '-x', '@@ -1 +1 @@', 'diff --git a/x b/x', '+++ b/x', '--- a/x', ' ctx', 'index 1..2'].map(diffLineKind)).toEqual([
      'add',
      'remove',
      'hunk',
      'header',
      'header',
      'header',
      'context',
      'header',
    ]);
  });
});
