import { describe, expect, it } from 'vitest';
import { TranscriptText } from '../src/output/transcript-text.js';

const text = (...chunks: string[]) => {
  const t = new TranscriptText();
  return chunks.map((c) => t.push(Buffer.from(c))).join('') + t.end();
};

describe('TranscriptText', () => {
  it('removes colour, cursor, title and clipboard sequences, and ends lines at carriage returns', () => {
    expect(text('\x1b[1;31mred\x1b[0m plain\r\n\x1b]0;pwned\x07title\x1b]52;c;Zm9v\x1b\\ clip\x1b[2J\x1b[Hdone\rover\n')).toBe('red plain\ntitle clipdone\nover\n');
  });

  it('holds back a sequence or a character split between chunks until the rest arrives', () => {
    const euro = Buffer.from('€');
    const t = new TranscriptText();
    expect(t.push(Buffer.from('a\x1b[3'))).toBe('a');
    expect(t.push(Buffer.from('1mb'))).toBe('b');
    expect(t.push(euro.subarray(0, 1))).toBe('');
    expect(t.push(euro.subarray(1))).toBe('€');
    expect(t.end()).toBe('');
  });

  it('makes any control that is left visible instead of obeying it', () => {
    expect(text('bell\x07 nul\x00 lone esc\x1b')).toBe('bell␇ nul␀ lone esc␛');
  });
});
