import { describe, expect, it } from 'vitest';
import { escapeTmuxArgument, escapeTmuxFormat, TmuxClient } from './tmux-client.js';

describe('escapeTmuxArgument', () => {
  it('escapes a trailing ; so tmux does not read it as a command separator', () => {
    expect(escapeTmuxArgument('rm -rf /;')).toBe('rm -rf /\\;');
    expect(escapeTmuxArgument('a\\;')).toBe('a\\\\;');
  });

  it('leaves any other argument unchanged', () => {
    for (const arg of ['', ';x', 'a ; b', '#{session_name}', '-t']) expect(escapeTmuxArgument(arg)).toBe(arg);
  });
});

describe('escapeTmuxFormat', () => {
  it('doubles # so a start directory is not expanded as a format', () => {
    expect(escapeTmuxFormat('/tmp/#{host}/x#')).toBe('/tmp/##{host}/x##');
  });
});

describe('TmuxClient.argv', () => {
  it('selects the server with -L only when a socket name is set', () => {
    expect(new TmuxClient('tmux', 'orange').argv(['list-windows', '-a'])).toEqual(['-L', 'orange', 'list-windows', '-a']);
    expect(new TmuxClient('tmux', undefined).argv(['list-windows'])).toEqual(['list-windows']);
  });
});
