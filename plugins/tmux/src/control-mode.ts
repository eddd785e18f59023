/**
 * tmux's control protocol (`tmux -C`), as a control client reads it from tmux's stdout: one message
 * a line, read as bytes — a pane's output is passed on byte for byte, and a chunk of stdout may end
 * in the middle of a UTF-8 character.
 */

/** One thing a control client is told. */
export type ControlMessage =
  /** `%output %<pane> <data>`: bytes a pane wrote, unescaped. */
  | { readonly kind: 'output'; readonly pane: string; readonly data: Buffer }
  /**
   * The answer to one command, the lines between `%begin` and `%end` (`ok`) or `%error`. `ours`:
   * a command this client wrote to tmux's stdin (not the `attach-session` it was started with).
   */
  | { readonly kind: 'reply'; readonly ours: boolean; readonly ok: boolean; readonly lines: readonly Buffer[] }
  /** `%exit [reason]`: tmux is done with this client; nothing follows. */
  | { readonly kind: 'exit'; readonly reason: string }
  /** Any other notification (`%layout-change @1 …`, `%window-close @1`, …): its name and words. */
  | { readonly kind: 'notice'; readonly name: string; readonly args: readonly string[] };

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const BACKSLASH = 0x5c;
const OUTPUT = Buffer.from('%output ');

/** A command's answer being read: the `%begin` line's time and number, which its `%end`/`%error` repeat. */
interface OpenBlock {
  readonly guard: string;
  readonly ours: boolean;
  readonly lines: Buffer[];
}

/**
 * Turns tmux's control-mode stdout, chunk by chunk, into messages. Lines inside a `%begin` block
 * are a command's output and taken as they are, even one starting with `%`: only the `%end` or
 * `%error` carrying the same time and number closes the block (what a captured pane shows cannot
 * end it early unless it prints that exact line).
 */
export class ControlModeParser {
  private rest: Buffer = Buffer.alloc(0);
  private block: OpenBlock | undefined;

  /** The messages completed by this chunk (a trailing partial line waits for the next one). */
  push(chunk: Buffer): ControlMessage[] {
    const data = this.rest.length === 0 ? chunk : Buffer.concat([this.rest, chunk]);
    const messages: ControlMessage[] = [];
    let start = 0;
    for (let end = data.indexOf(NEWLINE, start); end !== -1; end = data.indexOf(NEWLINE, start)) {
      // tmux ends lines with \n; a \r before it can only be a terminal's doing (control bytes in output are escaped).
      const line = data.subarray(start, end > start && data[end - 1] === CARRIAGE_RETURN ? end - 1 : end);
      start = end + 1;
      const message = this.line(line);
      if (message) messages.push(message);
    }
    // Copied: a subarray would keep the whole chunk alive until the line completes.
    this.rest = Buffer.from(data.subarray(start));
    return messages;
  }

  private line(line: Buffer): ControlMessage | undefined {
    if (this.block) {
      const end = closingLine(line, this.block.guard);
      if (end === undefined) {
        this.block.lines.push(Buffer.from(line));
        return undefined;
      }
      const { ours, lines } = this.block;
      this.block = undefined;
      return { kind: 'reply', ours, ok: end === 'end', lines };
    }
    if (line.subarray(0, OUTPUT.length).equals(OUTPUT)) {
      const space = line.indexOf(0x20, OUTPUT.length);
      if (space === -1) return undefined;
      return { kind: 'output', pane: line.subarray(OUTPUT.length, space).toString('latin1'), data: decodeOutput(line.subarray(space + 1)) };
    }
    if (line[0] !== 0x25 /* % */) return undefined;
    const words = line.toString('utf8').split(' ');
    const name = words[0]!.slice(1);
    if (name === 'begin') {
      // %begin <time> <number> <flags>: flags bit 1 marks a command this client sent.
      const [, time = '', number = '', flags = '0'] = words;
      this.block = { guard: `${time} ${number}`, ours: (Number(flags) & 1) === 1, lines: [] };
      return undefined;
    }
    if (name === 'exit') return { kind: 'exit', reason: words.slice(1).join(' ') };
    return { kind: 'notice', name, args: words.slice(1) };
  }
}

/** `end` or `error` when `line` closes the block opened with `guard` (`<time> <number>`), else undefined. */
function closingLine(line: Buffer, guard: string): 'end' | 'error' | undefined {
  if (line[0] !== 0x25) return undefined;
  const text = line.toString('latin1');
  for (const kind of ['end', 'error'] as const) {
    const head = `%${kind} ${guard}`;
    if (text === head || text.startsWith(`${head} `)) return kind;
  }
  return undefined;
}

/** The text of a command's answer (its lines joined, trimmed): a value read, or tmux's error. */
export function replyText(lines: readonly Buffer[]): string {
  return lines
    .map((line) => line.toString('utf8'))
    .join('\n')
    .trim();
}

const isOctal = (byte: number | undefined): byte is number => byte !== undefined && byte >= 0x30 && byte <= 0x37;

/**
 * The bytes of `%output` data: tmux writes every byte below 32, and the backslash itself, as `\ooo`
 * (three octal digits); all others, UTF-8 included, as they are.
 */
export function decodeOutput(escaped: Buffer): Buffer {
  const bytes = Buffer.allocUnsafe(escaped.length);
  let length = 0;
  for (let i = 0; i < escaped.length; i++) {
    const byte = escaped[i]!;
    if (byte === BACKSLASH) {
      const a = escaped[i + 1];
      const b = escaped[i + 2];
      const c = escaped[i + 3];
      if (isOctal(a) && isOctal(b) && isOctal(c)) {
        bytes[length++] = ((a - 0x30) * 64 + (b - 0x30) * 8 + (c - 0x30)) & 0xff;
        i += 3;
        continue;
      }
    }
    bytes[length++] = byte;
  }
  return bytes.subarray(0, length);
}
