import type { TerminalSize } from '@orange/core';

/**
 * What a terminal drawing a pane from scratch needs besides its text, read with one
 * `display-message -p` (in this order, space-separated).
 */
export const PANE_STATE_FORMAT =
  '#{pane_width} #{pane_height} #{cursor_x} #{cursor_y} #{cursor_flag} #{alternate_on} #{keypad_cursor_flag} #{scroll_region_upper} #{scroll_region_lower}';

/** A pane's size, cursor and the modes that change how later output or keys are read. */
export interface PaneState {
  readonly size: TerminalSize;
  readonly cursorX: number;
  readonly cursorY: number;
  readonly cursorVisible: boolean;
  /** The program drew on the alternate screen (a full-screen TUI); it switches back when it exits. */
  readonly alternateScreen: boolean;
  /** Application cursor keys (DECCKM): arrow keys are sent as `ESC O A`, and the program expects them so. */
  readonly applicationCursorKeys: boolean;
  readonly scrollTop: number;
  readonly scrollBottom: number;
}

/** The pane's state from `display-message -p PANE_STATE_FORMAT`; null when the line is not that. */
export function parsePaneState(line: string): PaneState | null {
  const fields = line.trim().split(' ');
  if (fields.length !== 9 || !fields.every((f) => /^\d+$/.test(f))) return null;
  const [cols, rows, x, y, cursor, alternate, keypad, top, bottom] = fields.map(Number) as [number, number, number, number, number, number, number, number, number];
  if (cols === 0 || rows === 0) return null;
  return {
    size: { cols, rows },
    cursorX: x,
    cursorY: y,
    cursorVisible: cursor === 1,
    alternateScreen: alternate === 1,
    applicationCursorKeys: keypad === 1,
    scrollTop: top,
    scrollBottom: bottom,
  };
}

const ESC = '\u001b';

/**
 * What a freshly reset terminal of the pane's size is written to show the pane as it is:
 * `lines` are `capture-pane -p -e` (one per row as displayed, SGR colours carried from line to
 * line), drawn from the top-left with CRLF between rows; then the modes a program set that change
 * how what it writes next lands (alternate screen, scroll region, cursor keys), and the cursor where
 * the program left it. Empty rows at the bottom are left out, and there is no CRLF after the last
 * row: a newline on the bottom row would scroll the whole picture up by one.
 */
export function screenData(lines: readonly string[], state: PaneState): string {
  const rows = lines.slice(0, state.size.rows);
  while (rows.length > 0 && rows.at(-1) === '') rows.pop();
  let data = '';
  if (state.alternateScreen) data += `${ESC}[?1049h`;
  data += `${ESC}[H${ESC}[2J${rows.join('\r\n')}${ESC}[0m`;
  // DECSTBM homes the cursor: set before the cursor is placed.
  if (state.scrollTop !== 0 || state.scrollBottom !== state.size.rows - 1) data += `${ESC}[${state.scrollTop + 1};${state.scrollBottom + 1}r`;
  if (state.applicationCursorKeys) data += `${ESC}[?1h`;
  data += `${ESC}[${state.cursorY + 1};${state.cursorX + 1}H`;
  if (!state.cursorVisible) data += `${ESC}[?25l`;
  return data;
}
