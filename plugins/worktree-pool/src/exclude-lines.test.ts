import { describe, expect, it } from 'vitest';
import { EXCLUDE_BEGIN, EXCLUDE_END, withoutOrangeLines } from './project-repo.js';

describe('withoutOrangeLines', () => {
  it("takes out every block Orange added, markers included, and keeps the user's lines byte for byte", () => {
    const user = '# git ls-files --others --exclude-from=.git/info/exclude\n# Lines that start with "#" are comments.\n.claude/\nmy-notes.txt\n';
    const added = `${user}${EXCLUDE_BEGIN}\nTASK.md\n.codex/\n${EXCLUDE_END}\nlater-user-line\n${EXCLUDE_BEGIN}\n.gemini/\n${EXCLUDE_END}\n`;
    expect(withoutOrangeLines(added)).toBe(`${user}later-user-line\n`);
    expect(withoutOrangeLines(user)).toBe(user);
    expect(withoutOrangeLines('')).toBe('');
  });

  it('takes a block cut short by a crash (no end marker) to the end of the file', () => {
    expect(withoutOrangeLines(`a\n${EXCLUDE_BEGIN}\nTASK.md\n`)).toBe('a\n');
  });
});
