import { describe, expect, it } from 'vitest';
import { quickRun } from './quick-run.js';

describe('quickRun', () => {
  it('returns the exit code and both outputs, with one final newline dropped', async () => {
    const result = await quickRun('sh', ['-c', 'printf "out\\n\\n"; printf "err\\n" >&2; exit 3']);
    expect(result).toEqual({ exitCode: 3, stdout: 'out\n', stderr: 'err', error: null });
  });

  it('passes each argument as it is: no shell sees it', async () => {
    const hostile = `$(touch /tmp/never); rm -rf / ; 'quoted' "double" \`tick\``;
    const result = await quickRun('printf', ['%s', hostile]);
    expect(result.stdout).toBe(hostile);
  });

  it('runs in the given directory with exactly the given environment, with no input', async () => {
    const result = await quickRun('sh', ['-c', 'pwd; printf "%s|%s" "$ONLY" "${HOME-unset}"; cat'], { cwd: '/', env: { ONLY: 'this', PATH: process.env.PATH } });
    expect(result.stdout).toBe('/\nthis|unset');
    expect(result.exitCode).toBe(0);
  });

  it('never rejects: a missing executable is an ENOENT result', async () => {
    const result = await quickRun('no-such-binary-orange-xyz', []);
    expect(result.exitCode).toBeNull();
    expect(result.error?.code).toBe('ENOENT');
  });
});
