import { describe, expect, it } from 'vitest';
import { headlessData } from './headless-data.js';

describe('headlessData', () => {
  it('reads a text that is one JSON object', () => {
    expect(headlessData('{"intent":"bugfix","confidence":0.8}')).toEqual({ intent: 'bugfix', confidence: 0.8 });
  });

  it('reads the last JSON line after free text, inside backticks too', () => {
    expect(headlessData('I looked at it.\n{"a":1}\nthen\n`{"intent":"feature","confidence":0.9}`\n')).toEqual({ intent: 'feature', confidence: 0.9 });
  });

  it('returns no fields for free text, arrays and broken JSON', () => {
    expect(headlessData('all done')).toEqual({});
    expect(headlessData('[1,2]')).toEqual({});
    expect(headlessData('{"intent": ')).toEqual({});
  });
});
