import { describe, expect, it } from 'vitest';
import { jsonErrorOffset } from './json-error-offset.js';

describe('jsonErrorOffset', () => {
  it.each([
    ['{"a": 1}', null],
    [' [1, -2.5e3, "x\\n\\u00e9", true, false, null, {}] ', null],
    ['[1,]', 3],
    ['{"a": 1,}', 8],
    ['{"a" 1}', 5],
    ['{"a": tru}', 6],
    ['{"a": 01}', 7],
    ['{"a":1}}', 7],
    ['"abc', 4],
    ['{"a": "x\ny"}', 8],
    ['{"a": "\\q"}', 8],
    ["{'a': 1}", 1],
    ['', 0],
  ])('finds the first error of %j at %j', (text, offset) => {
    expect(jsonErrorOffset(text)).toBe(offset);
    // The scanner must agree with JSON.parse about what is valid.
    let parses = true;
    try {
      JSON.parse(text);
    } catch {
      parses = false;
    }
    expect(parses).toBe(offset === null);
  });
});
