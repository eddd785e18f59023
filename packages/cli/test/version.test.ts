import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withCommit } from '../src/hooks/commit-in-version.js';
import { CLI, root } from './cli-sandbox.js';

/** HEAD's short hash, or null outside a git checkout (a build from a tarball). */
async function head(): Promise<string | null> {
  const run = await execa('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, reject: false });
  return run.exitCode === 0 ? String(run.stdout).trim() : null;
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'orange-version-'));
  await writeFile(join(dir, '.orangerc.json'), '{}\n');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function orange(args: readonly string[]): Promise<string> {
  const { TMUX: _t, TMUX_PANE: _p, ...env } = process.env;
  const run = await execa(process.execPath, [CLI, ...args], { cwd: dir, env: { ...env, ORANGE_HOME: join(dir, 'home') }, extendEnv: false, reject: false });
  expect(run.exitCode, `orange ${args.join(' ')}: ${String(run.stderr)}`).toBe(0);
  return String(run.stdout);
}

describe('orange --version', async () => {
  const commit = await head();

  it.skipIf(commit === null)('names the commit of HEAD the CLI was built from (-dirty for a changed tree), wherever the version shows', async () => {
    const line = new RegExp(`^@orange/cli/\\d+\\.\\d+\\.\\d+ \\S+-\\S+ node-v\\S+ \\(commit ${commit}(-dirty)?\\)$`);
    for (const args of [['--version'], ['-v'], ['version']]) {
      const out = await orange(args);
      expect(out, `orange ${args.join(' ')} (a CLI built from another commit than HEAD needs: npm run build)`).toMatch(line);
    }
    expect((await orange(['help'])).split('\n')).toContainEqual(expect.stringMatching(new RegExp(`^  @orange/cli/\\S+ .* \\(commit ${commit}(-dirty)?\\)$`)));
  });
});

describe('withCommit', () => {
  it("puts the commit after oclif's version line, keeping its three fields first", () => {
    expect(withCommit('@orange/cli/0.1.0 linux-x64 node-v20.20.2', '3f9c2ab')).toBe('@orange/cli/0.1.0 linux-x64 node-v20.20.2 (commit 3f9c2ab)');
    expect(withCommit('@orange/cli/0.1.0 darwin-arm64 node-v22.1.0', '3f9c2ab-dirty')).toBe('@orange/cli/0.1.0 darwin-arm64 node-v22.1.0 (commit 3f9c2ab-dirty)');
  });

  it('leaves the line as it is for a build outside a git checkout', () => {
    expect(withCommit('@orange/cli/0.1.0 linux-x64 node-v20.20.2', '')).toBe('@orange/cli/0.1.0 linux-x64 node-v20.20.2');
  });
});
