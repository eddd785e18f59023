/** The smallest font the page scales an agent's terminal down to (a wider window scrolls sideways). */
export const MIN_FONT = 7;
/** The largest: a narrow agent window on a wide screen stays readable, not huge. */
export const MAX_FONT = 15;
/** A terminal cell's height per pixel of font size (xterm's line height 1, the font's ascent and descent). */
const LINE_RATIO = 1.2;

/**
 * The font size (in half pixels) at which `cols` cells of a monospace font whose cell is
 * `charRatio` × its size wide fit in `width` pixels, between {@link MIN_FONT} and {@link MAX_FONT}.
 */
export function fittedFontSize(width: number, cols: number, charRatio: number): number {
  if (width <= 0 || cols <= 0 || charRatio <= 0) return MIN_FONT;
  // A little room: xterm rounds its cell width to device pixels.
  const exact = (width * 0.985) / cols / charRatio;
  return Math.min(MAX_FONT, Math.max(MIN_FONT, Math.floor(exact * 2) / 2));
}

/** The cells a `width` × `height` pixel area holds at `fontSize` (what the agent's window is resized to while a person types). */
export function proposedSize(width: number, height: number, fontSize: number, charRatio: number): { cols: number; rows: number } {
  const cols = Math.floor(width / (fontSize * charRatio));
  const rows = Math.floor(height / Math.ceil(fontSize * LINE_RATIO));
  return { cols: Math.min(500, Math.max(20, cols)), rows: Math.min(200, Math.max(5, rows)) };
}

// What a terminal answers by itself to queries in its output: device attributes (`ESC [ ? 1 ; 2 c`),
// status and cursor position reports (`ESC [ 0 n`, `ESC [ 12 ; 4 R`), mode reports (`ESC [ ? 1 ; 2 $ y`),
// and OSC / DCS replies (colours, terminfo).
const REPORT = /^\u001b(?:\[[?>=]?[\d;]*(?:c|n|R|\$y)|\][\s\S]*(?:\u0007|\u001b\\)|P[\s\S]*\u001b\\)$/;

/** Whether xterm's `onData` is the terminal answering a query rather than a key typed. */
export function isTerminalReport(data: string): boolean {
  return REPORT.test(data);
}
