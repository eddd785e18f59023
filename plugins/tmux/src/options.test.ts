import { OrangeError } from '@orange/core';
import { describe, expect, it } from 'vitest';
import { parseTmuxOptions } from './options.js';
import { tmux } from './tmux.js';

describe('tmux options', () => {
  it('takes the socket from ORANGE_TMUX_SOCKET when not given', () => {
    expect(parseTmuxOptions({}, { ORANGE_TMUX_SOCKET: 'orange-demo' }).socketName).toBe('orange-demo');
    expect(parseTmuxOptions({ socketName: 'mine' }, { ORANGE_TMUX_SOCKET: 'orange-demo' }).socketName).toBe('mine');
    expect(parseTmuxOptions({}, {}).socketName).toBeUndefined();
    expect(parseTmuxOptions({}, {}).tmuxBin).toBe('tmux');
  });

  it('refuses a bad option naming the plugin and the field', () => {
    const error = (() => {
      try {
        tmux({ socketName: '../evil' });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(OrangeError);
    expect((error as OrangeError).message).toMatch(/^plugin tmux: option "socketName"/);
    expect(() => tmux({ tmuxBin: '' })).toThrow(/option "tmuxBin"/);
    expect(() => tmux({ colour: 'red' } as never)).toThrow(/plugin tmux/);
  });
});
