import { describe, expect, it } from 'vitest';
import { blockText, inlineText, oneLineSummary, terminalJson } from './terminal-text.js';

/** Anything a terminal would act on: C0 (tab and newline allowed where noted), DEL, C1, bidi and invisible characters. */
const ACTIVE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200b\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]/;
const ACTIVE_EXCEPT_LAYOUT = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]/;

describe('inlineText', () => {
  it('defuses a CSI clear-screen at its ESC and keeps the rest readable', () => {
    expect(inlineText('before\x1b[2Jafter')).toBe('before␛[2Jafter');
  });

  it('defuses an OSC window-title write terminated by BEL', () => {
    expect(inlineText('\x1b]0;pwned\x07ok')).toBe('␛]0;pwned␇ok');
  });

  it('defuses an OSC 52 clipboard write terminated by ST', () => {
    const out = inlineText('\x1b]52;c;cm0gLXJmIH4K\x1b\\');
    expect(out).toBe('␛]52;c;cm0gLXJmIH4K␛\\');
    expect(out).not.toMatch(ACTIVE);
  });

  it('defuses DCS and APC strings', () => {
    expect(inlineText('\x1bPq#0\x1b\\ \x1b_apc\x1b\\')).toBe('␛Pq#0␛\\ ␛_apc␛\\');
  });

  it('shows an 8-bit C1 CSI and every other C1 control as its code', () => {
    expect(inlineText('\x9b2J')).toBe('\\u009b2J');
    expect(inlineText('\x9d0;t\x9c \x85')).not.toMatch(ACTIVE);
  });

  it('shows a lone ESC, a trailing ESC and DEL', () => {
    expect(inlineText('a\x1bb\x1b')).toBe('a␛b␛');
    expect(inlineText('x\x7f')).toBe('x␡');
  });

  it('shows a carriage return and a backspace instead of letting them overwrite the line', () => {
    expect(inlineText('safe\rrm -rf /')).toBe('safe␍rm -rf /');
    expect(inlineText('yes\b\b\bno')).toBe('yes␈␈␈no');
  });

  it('keeps one line: every kind of line break becomes ⏎ and a tab becomes ␉', () => {
    expect(inlineText('a\nb\r\nc\vd\fe\u0085f')).toBe('a⏎b⏎c⏎d⏎e⏎f');
    expect(inlineText('a\tb')).toBe('a␉b');
    expect(inlineText('a\u2028b\u2029c')).toBe('a\\u2028b\\u2029c');
  });

  it('neutralises bidi overrides and isolates that reorder what is shown', () => {
    const trojan = 'access = "user\u202e \u2066// admin\u2069 \u2066"';
    const out = inlineText(trojan);
    expect(out).toBe('access = "user\\u202e \\u2066// admin\\u2069 \\u2066"');
    expect(inlineText('\u202a\u202b\u202c\u202d\u2067\u2068\u200e\u200f\u061c')).not.toMatch(ACTIVE);
  });

  it('shows zero-width characters that could disguise a word, but keeps emoji joiners', () => {
    expect(inlineText('ad\u200bmin\ufeff')).toBe('ad\\u200bmin\\ufeff');
    expect(inlineText('👩\u200d💻 Ünïcødé 日本語')).toBe('👩\u200d💻 Ünïcødé 日本語');
  });

  it('leaves plain text as it is and is idempotent', () => {
    const plain = 'Add a login form (with validation) — 100% [done]';
    expect(inlineText(plain)).toBe(plain);
    const once = inlineText('\x1b]0;x\x07\n\x9b\u202e\t');
    expect(inlineText(once)).toBe(once);
  });
});

describe('blockText', () => {
  it('keeps newlines and tabs of a multi-line body', () => {
    expect(blockText('## Plan\n\tAPPROACH: x\n')).toBe('## Plan\n\tAPPROACH: x\n');
  });

  it('reads a CRLF file as lines instead of showing ␍ on each', () => {
    expect(blockText('a\r\nb\r\n')).toBe('a\nb\n');
  });

  it('neutralises escapes, a lone CR, backspace, C1 and bidi inside the lines', () => {
    const out = blockText('one\x1b[2J\ntwo\x1b]0;t\x07\rthree\b\x9b\u202e');
    expect(out).toBe('one␛[2J\ntwo␛]0;t␇␍three␈\\u009b\\u202e');
    expect(out).not.toMatch(ACTIVE_EXCEPT_LAYOUT);
  });
});

describe('oneLineSummary', () => {
  it('folds newlines and whitespace runs into single spaces and trims', () => {
    expect(oneLineSummary('  Fix\nthe \r\n\t bug  ')).toBe('Fix the bug');
    expect(oneLineSummary('a\u2028b\u0085c')).toBe('a b c');
  });

  it('keeps other characters as they are (output cleans them, --json shows them exactly)', () => {
    expect(oneLineSummary('\x1b[2Jx')).toBe('\x1b[2Jx');
  });

  it('makes a summary of only whitespace empty', () => {
    expect(oneLineSummary(' \n\t ')).toBe('');
  });
});

describe('terminalJson', () => {
  it('parses back to exactly the same strings', () => {
    const value = { s: '\x1b]52;c;eA==\x1b\\\x07\x9b\x7f\u202e\u2028\u200b\ufeff\nend', n: 1 };
    expect(JSON.parse(terminalJson(value, 2))).toEqual(value);
  });

  it('writes no byte a terminal would act on, pretty or not', () => {
    const value = { s: '\x1b[2J\x9b\x85\x7f\u202e\u2066\u2028\u00ad' };
    expect(terminalJson(value)).not.toMatch(ACTIVE);
    expect(terminalJson(value, 2)).not.toMatch(ACTIVE_EXCEPT_LAYOUT);
  });
});
