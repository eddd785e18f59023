/** The parts of ink's key event a text field reads. */
export interface EditKey {
  readonly backspace?: boolean;
  readonly delete?: boolean;
  readonly ctrl?: boolean;
  readonly meta?: boolean;
  readonly return?: boolean;
  readonly escape?: boolean;
  readonly tab?: boolean;
  readonly upArrow?: boolean;
  readonly downArrow?: boolean;
  readonly leftArrow?: boolean;
  readonly rightArrow?: boolean;
}

/** A one-line text field's value after a key: typed text appended (line breaks dropped), Backspace, Ctrl-u clears. */
export function editText(value: string, input: string, key: EditKey): string {
  if (key.backspace || key.delete) return [...value].slice(0, -1).join('');
  if (key.ctrl && input === 'u') return '';
  if (key.ctrl || key.meta || key.return || key.escape || key.tab || key.upArrow || key.downArrow || key.leftArrow || key.rightArrow) return value;
  // A paste arrives as one input: keep it on one line.
  return value + input.replace(/[\r\n]+/g, ' ').replace(/[\u0000-\u001f\u007f]/g, '');
}

/**
 * A line pasted (or typed faster than the screen reads it) arrives with its Enter in the same read:
 * the field's value with the text before that line break, to submit; null for any other input.
 */
export function submittedLine(value: string, input: string, key: EditKey): string | null {
  const end = /[\r\n]+$/.exec(input);
  if (!end || key.return || key.ctrl || key.meta) return null;
  return editText(value, input.slice(0, end.index), key);
}
