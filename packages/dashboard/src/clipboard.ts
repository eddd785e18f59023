/**
 * The OSC 52 sequence that puts `text` on the terminal's clipboard (`y`): base64, so nothing in it
 * can end the sequence early. Inside tmux it reaches the outer terminal with `set-clipboard on`.
 */
export function clipboardSequence(text: string): string {
  return `\u001b]52;c;${Buffer.from(text, 'utf8').toString('base64')}\u0007`;
}
