import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { agentCli } from './agent-cli.js';

let dir: string | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('agentCli', () => {
  it('finds the CLI in ORANGE_AGENT_CLI_DIR, its bin/ or an npm prefix', async () => {
    dir = await mkdtemp(join(tmpdir(), 'orange-agent-cli-'));
    for (const [sub, bin] of [['', 'one'], ['bin', 'two'], ['node_modules/.bin', 'three']] as const) {
      await mkdir(join(dir, sub), { recursive: true });
      await writeFile(join(dir, sub, bin), '#!/bin/sh\n');
      await chmod(join(dir, sub, bin), 0o755);
      expect(agentCli(bin, { ORANGE_AGENT_CLI_DIR: dir, PATH: '' })).toBe(join(dir, sub, bin));
    }
  });

  it('skips, saying so, outside CI; fails in CI', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    expect(agentCli('orange-no-such-agent', { PATH: '' })).toBeNull();
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('orange-no-such-agent CLI contract test skipped'));
    expect(() => agentCli('orange-no-such-agent', { PATH: '', CI: 'true' })).toThrow(/^CI: the orange-no-such-agent CLI contract test must run/);
  });
});
