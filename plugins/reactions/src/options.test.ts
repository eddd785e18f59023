import { describe, expect, it } from 'vitest';
import { reactions } from './index.js';

describe('reactions options', () => {
  it('refuses bad options naming the plugin and the field', () => {
    expect(() => reactions({ 'ci-failed': { retries: -1 } })).toThrow(/plugin reactions: option "ci-failed.retries"/);
    expect(() => reactions({ 'ci-broke': {} } as never)).toThrow('plugin reactions: unknown option "ci-broke"');
  });
});
