import { StringDecoder } from 'node:string_decoder';
import { blockText } from '@orange/core';

// Complete escape sequences: CSI (colours, cursor moves), OSC (titles, clipboard) ended by BEL or ST,
// DCS/APC/PM/SOS strings, charset selections, and the other two-byte ESC sequences.
const SEQUENCE = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[P^_X][^\x1b]*\x1b\\|\x1b[()*+][ -~]|\x1b[ -/]*[0-~]/g;
// An escape sequence cut at the end of a chunk: kept back until the rest arrives.
const UNFINISHED = /\x1b(?:\[[0-?]*[ -/]*|\][^\x07\x1b]*|[P^_X][^\x1b]*|[()*+ -/]*)?$/;

/**
 * Turns an agent's raw terminal stream into text that is safe to print: escape sequences are
 * removed (not shown, a TUI's output would be mostly `␛[…`), carriage returns end lines, and
 * whatever control is left is made visible by `blockText`. Chunks may split a character or a
 * sequence anywhere; call `end()` for what is held back.
 */
export class TranscriptText {
  private readonly decoder = new StringDecoder('utf8');
  private held = '';

  /** The printable text of the next chunk. */
  push(chunk: Buffer): string {
    const text = this.held + this.decoder.write(chunk);
    const cut = UNFINISHED.exec(text);
    this.held = cut ? text.slice(cut.index) : '';
    return clean(cut ? text.slice(0, cut.index) : text);
  }

  /** What is left at the end of the stream. */
  end(): string {
    const rest = this.held + this.decoder.end();
    this.held = '';
    return clean(rest);
  }
}

function clean(text: string): string {
  return blockText(text.replace(SEQUENCE, '').replace(/\r+\n/g, '\n').replace(/\r/g, '\n'));
}
