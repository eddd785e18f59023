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

  // The build's commit, not HEAD's: a build turbo serves from its cache, or one made before the last
  // commit, names an earlier commit — which must still be one of this history's.
  it.skipIf(commit === null)('names a commit of this history the CLI was built from (-dirty for a changed tree), wherever the version shows', async () => {
    const line = /^@orange\/cli\/\d+\.\d+\.\d+ \S+-\S+ node-v\S+ \(commit ([0-9a-f]{7,40})(-dirty)?\)$/;
    const shown = new Set<string>();
    for (const args of [['--version'], ['-v'], ['version']]) {
      const out = (await orange(args)).trim();
      expect(out, `orange ${args.join(' ')}`).toMatch(line);
      shown.add(line.exec(out)![1]!);
    }
    expect(shown.size, 'one commit everywhere').toBe(1);
    const [built] = [...shown];
    const ancestor = await execa('git', ['merge-base', '--is-ancestor', built!, 'HEAD'], { cwd: root, reject: false });
    expect(ancestor.exitCode, `commit ${built} is not HEAD (${commit}) or one of its ancestors`).toBe(0);
    expect((await orange(['help'])).split('\n')).toContainEqual(expect.stringMatching(new RegExp(`^  @orange/cli/\\S+ .* \\(commit ${built}(-dirty)?\\)$`)));
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
