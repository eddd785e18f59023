import { existsSync } from 'node:fs';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { CLI } from './sandbox.js';

interface DemoJson {
  readonly ok: boolean;
  readonly sandbox: string;
  readonly rows: ReadonlyArray<Record<string, string>>;
  readonly error?: string;
}

// The README's first command ends in `orange demo`: this is the proof that it works on a fresh
// machine — every task done, nothing left behind.
describe('orange demo', () => {
  it('runs three tasks through planning, review (one failing once) and merge to done, then cleans up', async () => {
    const { TMUX: _t, TMUX_PANE: _p, ORANGE_TASK_ID: _i, ORANGE_PROJECT: _j, ORANGE_HOME: _h, ...env } = process.env;
    const run = await execa(process.execPath, [CLI, 'demo', '--json', '--timeout', '150'], { env, extendEnv: false, reject: false, timeout: 170_000 });
    expect(run.stderr).toBe('');
    expect(run.exitCode).toBe(0);
    const result = JSON.parse(run.stdout) as DemoJson;
    expect(result.ok).toBe(true);
    expect(result.error).toBeUndefined();
    expect(result.rows).toHaveLength(3);
    for (const row of result.rows) expect(row).toMatchObject({ status: 'done' });
    // One task's first review fails: it needs a second round.
    expect(result.rows.map((r) => r.reviews).sort()).toEqual(['1', '1', '2']);
    expect(existsSync(result.sandbox)).toBe(false);
  }, 180_000);
});
