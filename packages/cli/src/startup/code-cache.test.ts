import { describe, expect, it } from 'vitest';
import { codeCacheDir, commandWords } from './code-cache.js';

describe('commandWords', () => {
  it('takes the first two command words and stops at a flag or a task id', () => {
    expect(commandWords(['task', 'show', 'UrHygugwNTqloCiMOvX7c', '--json'])).toBe('task show');
    expect(commandWords(['task', 'create', 'fix-login', 'Fix it'])).toBe('task create');
    expect(commandWords(['--version'])).toBe('');
    expect(commandWords(['log', 'UrHygugwNTqloCiMOvX7c'])).toBe('log');
    expect(commandWords(['x'.repeat(40)])).toBe('');
  });
});

describe('codeCacheDir', () => {
  it('follows ORANGE_CODE_CACHE_DIR, then XDG_CACHE_HOME, and is off with NODE_DISABLE_COMPILE_CACHE', () => {
    expect(codeCacheDir({ ORANGE_CODE_CACHE_DIR: '/c', XDG_CACHE_HOME: '/x' })).toBe('/c');
    expect(codeCacheDir({ XDG_CACHE_HOME: '/x' })).toBe('/x/orange');
    expect(codeCacheDir({ ORANGE_CODE_CACHE_DIR: '/c', NODE_DISABLE_COMPILE_CACHE: '1' })).toBeNull();
  });
});
