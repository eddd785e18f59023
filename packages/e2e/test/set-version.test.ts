/**
 * scripts/set-version.mjs, the release flow's one step that edits files (docs/releasing.md), run
 * on a small monorepo of its own: one version everywhere, internal pins and peer ranges, and the
 * CHANGELOG.md entry it requires and writes — or one line and nothing changed.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const SCRIPT = resolve(dirname(fileURLToPath(import.meta.url)), '../../../scripts/set-version.mjs');

const CHANGELOG = `# Changelog

Notes.

## Unreleased

- The dashboard shows transcripts.

## 0.1.0 — 2026-01-05

- First release.
`;

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'orange-set-version-'));
  const write = async (path: string, json: object) => {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), `${JSON.stringify(json, null, 2)}\n`);
  };
  await write('package.json', { name: 'mono', private: true, workspaces: ['packages/*', 'plugins/*'] });
  await write('packages/core/package.json', { name: '@orange/core', version: '0.1.0', dependencies: { zod: '^4.6.7' } });
  await write('packages/cli/package.json', { name: '@orange/cli', version: '0.1.0', dependencies: { '@orange/core': '0.1.0', jiti: '^2.7.0' }, devDependencies: { '@orange/plugin-x': '0.1.0' } });
  await write('plugins/x/package.json', { name: '@orange/plugin-x', version: '0.1.0', peerDependencies: { '@orange/core': '^0.1.0' }, devDependencies: { '@orange/core': '0.1.0' } });
  await writeFile(join(root, 'CHANGELOG.md'), CHANGELOG);
});
afterEach(() => rm(root, { recursive: true, force: true }));

const run = (...args: string[]) => execa(process.execPath, [SCRIPT, ...args, '--root', root], { reject: false });
const manifest = async (path: string) => JSON.parse(await readFile(join(root, path, 'package.json'), 'utf8')) as Record<string, Record<string, string> | string>;

/** Every file of the fixture, to show that a refusal changed none. */
async function snapshot(): Promise<string[]> {
  return Promise.all(['package.json', 'packages/core/package.json', 'packages/cli/package.json', 'plugins/x/package.json', 'CHANGELOG.md'].map((f) => readFile(join(root, f), 'utf8').catch(() => '(none)')));
}

describe('scripts/set-version.mjs', () => {
  it('sets one version, pins internal dependencies, gives peers a caret range, leaves third-party ranges, and dates the Unreleased notes', async () => {
    const result = await run('0.2.0', '--date', '2026-03-01');
    expect(result.exitCode, String(result.stderr)).toBe(0);
    expect(await manifest('packages/core')).toMatchObject({ version: '0.2.0', dependencies: { zod: '^4.6.7' } });
    expect(await manifest('packages/cli')).toMatchObject({ version: '0.2.0', dependencies: { '@orange/core': '0.2.0', jiti: '^2.7.0' }, devDependencies: { '@orange/plugin-x': '0.2.0' } });
    expect(await manifest('plugins/x')).toMatchObject({ version: '0.2.0', peerDependencies: { '@orange/core': '^0.2.0' }, devDependencies: { '@orange/core': '0.2.0' } });
    expect(await readFile(join(root, 'CHANGELOG.md'), 'utf8')).toBe(
      CHANGELOG.replace('## Unreleased\n', '## Unreleased\n\n## 0.2.0 — 2026-03-01\n'),
    );
    expect(String(result.stdout)).toContain('CHANGELOG.md: ## 0.2.0 — 2026-03-01');
  });

  it('refuses a release with no notes under Unreleased, changing nothing', async () => {
    await writeFile(join(root, 'CHANGELOG.md'), CHANGELOG.replace('- The dashboard shows transcripts.\n', ''));
    const before = await snapshot();
    const result = await run('0.2.0');
    expect({ code: result.exitCode, stderr: String(result.stderr) }).toEqual({
      code: 1,
      stderr: `set-version: CHANGELOG.md's "## Unreleased" section is empty; write what 0.2.0 changes there first`,
    });
    expect(await snapshot()).toEqual(before);
  });

  it('refuses a version that already has an entry, and a changelog without an Unreleased section or none at all', async () => {
    const before = await snapshot();
    const again = await run('0.1.0');
    expect(String(again.stderr)).toBe('set-version: CHANGELOG.md already has an entry for 0.1.0; choose the next version');
    expect(again.exitCode).toBe(1);
    expect(await snapshot()).toEqual(before);

    await writeFile(join(root, 'CHANGELOG.md'), CHANGELOG.replace('## Unreleased', '## Next'));
    const unnamed = await run('0.2.0');
    expect({ code: unnamed.exitCode, stderr: String(unnamed.stderr) }).toEqual({ code: 1, stderr: 'set-version: CHANGELOG.md has no "## Unreleased" section; write the release notes there first' });

    await rm(join(root, 'CHANGELOG.md'));
    const missing = await run('0.2.0');
    expect(missing.exitCode).toBe(1);
    expect(String(missing.stderr)).toMatch(/CHANGELOG\.md does not exist/);
    expect((await manifest('packages/core')).version).toBe('0.1.0');
  });

  it('refuses a version that is not x.y.z with usage exit 2', async () => {
    const result = await run('v0.2');
    expect({ code: result.exitCode, stderr: String(result.stderr) }).toEqual({ code: 2, stderr: 'set-version: give a version such as 0.2.0 (got "v0.2")' });
    expect((await manifest('packages/core')).version).toBe('0.1.0');
  });
});
