import { describe, expect, it } from 'vitest';
import { parsePaneState, screenData, type PaneState } from './pane-screen.js';

const plain: PaneState = {
  size: { cols: 80, rows: 5 },
  cursorX: 2,
  cursorY: 1,
  cursorVisible: true,
  alternateScreen: false,
  applicationCursorKeys: false,
  scrollTop: 0,
  scrollBottom: 4,
};

describe('parsePaneState', () => {
  it('reads the size, the cursor and the modes, in the order of PANE_STATE_FORMAT', () => {
    expect(parsePaneState('100 30 4 7 0 1 1 2 20\n')).toEqual({
      size: { cols: 100, rows: 30 },
      cursorX: 4,
      cursorY: 7,
      cursorVisible: false,
      alternateScreen: true,
      applicationCursorKeys: true,
      scrollTop: 2,
      scrollBottom: 20,
    });
  });

  it('refuses anything else', () => {
    expect(parsePaneState('')).toBeNull();
    expect(parsePaneState('80 24 0 0 1 0 0 0')).toBeNull();
    expect(parsePaneState('80 24 0 0 1 0 0 0 x')).toBeNull();
    expect(parsePaneState('0 24 0 0 1 0 0 0 23')).toBeNull();
  });
});

describe('screenData', () => {
  it('clears, draws the rows with CRLF between them, leaves out empty rows at the bottom, resets colours and places the cursor', () => {
    expect(screenData(['$ ls', '\u001b[31mred', '', '', ''], plain)).toBe('\u001b[H\u001b[2J$ ls\r\n\u001b[31mred\u001b[0m\u001b[2;3H');
  });

  it('keeps empty rows between drawn ones, and never more rows than the pane has', () => {
    expect(screenData(['a', '', 'b', 'c', 'd', 'e', 'f'], plain)).toBe('\u001b[H\u001b[2Ja\r\n\r\nb\r\nc\r\nd\u001b[0m\u001b[2;3H');
  });

  it('restores the alternate screen, a scroll region, application cursor keys and a hidden cursor', () => {
    const tui: PaneState = { ...plain, cursorVisible: false, alternateScreen: true, applicationCursorKeys: true, scrollTop: 1, scrollBottom: 3 };
    expect(screenData(['x'], tui)).toBe('\u001b[?1049h\u001b[H\u001b[2Jx\u001b[0m\u001b[2;4r\u001b[?1h\u001b[2;3H\u001b[?25l');
  });
});
