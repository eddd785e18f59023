import { describe, expect, it } from 'vitest';
import { ControlModeParser, decodeOutput, type ControlMessage } from './control-mode.js';

const bytes = (text: string) => Buffer.from(text, 'utf8');

/** Everything a fresh parser makes of these chunks. */
function parse(...chunks: Array<string | Buffer>): ControlMessage[] {
  const parser = new ControlModeParser();
  return chunks.flatMap((chunk) => parser.push(typeof chunk === 'string' ? bytes(chunk) : chunk));
}

describe('decodeOutput', () => {
  it('turns \\ooo escapes back into the bytes below 32 and the backslash', () => {
    expect(decodeOutput(bytes('a\\015\\012b\\033[1mc\\134d'))).toEqual(bytes('a\r\nb\u001b[1mc\\d'));
  });

  it('passes bytes of 32 and above through as they are, UTF-8 included', () => {
    expect(decodeOutput(bytes('héllo wörld ✓'))).toEqual(bytes('héllo wörld ✓'));
  });

  it('keeps a backslash that is not followed by three octal digits', () => {
    expect(decodeOutput(bytes('x\\8y\\01'))).toEqual(bytes('x\\8y\\01'));
  });
});

describe('ControlModeParser', () => {
  it("reads a pane's output as bytes, with the escaped backslash and line break", () => {
    expect(parse('%output %3 C:\\134dir\\015\\012\n')).toEqual([{ kind: 'output', pane: '%3', data: bytes('C:\\dir\r\n') }]);
  });

  it('joins a UTF-8 character split between two chunks of stdout', () => {
    const e = bytes('é');
    const first = Buffer.concat([bytes('%output %1 caf'), e.subarray(0, 1)]);
    const second = Buffer.concat([e.subarray(1), bytes('!\n')]);
    expect(parse(first, second)).toEqual([{ kind: 'output', pane: '%1', data: bytes('café!') }]);
  });

  it('waits for the end of a line that spans chunks, and reads several lines from one chunk', () => {
    const parser = new ControlModeParser();
    expect(parser.push(bytes('%output %1 a'))).toEqual([]);
    expect(parser.push(bytes('b\n%output %2 c\n%output %1'))).toEqual([
      { kind: 'output', pane: '%1', data: bytes('ab') },
      { kind: 'output', pane: '%2', data: bytes('c') },
    ]);
    expect(parser.push(bytes(' d\n'))).toEqual([{ kind: 'output', pane: '%1', data: bytes('d') }]);
  });

  it("collects a command's answer, even lines that look like notifications, until its own %end", () => {
    const messages = parse(
      '%begin 1700000000 42 1\n',
      '80 24 3 1\n%output %1 not output\n%end 1700000000 41 1\n\n',
      '%end 1700000000 42 1\n',
    );
    expect(messages).toEqual([
      { kind: 'reply', ours: true, ok: true, lines: [bytes('80 24 3 1'), bytes('%output %1 not output'), bytes('%end 1700000000 41 1'), bytes('')] },
    ]);
  });

  it('tells an answer to attach-session (flags 0) from one to a command this client sent, and %error from %end', () => {
    expect(parse("%begin 1 7 0\ncan't find session: x\n%error 1 7 0\n%begin 1 8 1\n%end 1 8 1\n")).toEqual([
      { kind: 'reply', ours: false, ok: false, lines: [bytes("can't find session: x")] },
      { kind: 'reply', ours: true, ok: true, lines: [] },
    ]);
  });

  it('reads %exit with and without a reason, and other notifications by name and words', () => {
    expect(parse('%layout-change @2 b25d,80x24,0,0,2 b25d,80x24,0,0,2 *\n%window-close @2\n%exit\n%exit server exited\n')).toEqual([
      { kind: 'notice', name: 'layout-change', args: ['@2', 'b25d,80x24,0,0,2', 'b25d,80x24,0,0,2', '*'] },
      { kind: 'notice', name: 'window-close', args: ['@2'] },
      { kind: 'exit', reason: '' },
      { kind: 'exit', reason: 'server exited' },
    ]);
  });

  it('skips lines outside a block that are not notifications, and an %output without data', () => {
    expect(parse('stray text\n%output %1\n\n%sessions-changed\n')).toEqual([{ kind: 'notice', name: 'sessions-changed', args: [] }]);
  });
});
