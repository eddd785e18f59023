/**
 * `orange init` from a clean clone: a typed config naming the harness that is installed, the
 * offer to register the project (answered by flags, never waiting without a terminal), a local
 * plugin with a test that passes as generated, and nothing overwritten without --force.
 */
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliSandbox, root, type CliResult } from './cli-sandbox.js';

let box: CliSandbox;
let env: Record<string, string>;
beforeAll(async () => {
  box = await CliSandbox.create({ project: null });
  // A codex on PATH (and no claude): init must pick it, doctor must find its version.
  const bin = join(box.dir, 'bin');
  await mkdir(bin);
  await writeFile(join(bin, 'codex'), '#!/bin/sh\necho "codex-cli 0.42.0"\n');
  await chmod(join(bin, 'codex'), 0o755);
  env = { PATH: `${bin}:${box.env.PATH}` };
});
afterAll(() => box?.cleanup());

function explain(result: CliResult): string {
  return `exit ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`;
}

let repos = 0;
async function freshClone(): Promise<string> {
  repos += 1;
  const repo = join(box.dir, `clone-${repos}`);
  await box.makeRepo(repo, join(box.dir, `origin-${repos}.git`));
  return repo;
}

describe('orange init', () => {
  it('writes a typed, commented orange.config.ts naming the installed harness, which then loads', async () => {
    const repo = await freshClone();
    const result = await box.orange(['init', '--no-register'], { cwd: join(repo), env });
    expect(result.code, explain(result)).toBe(0);
    expect(result.stdout).toContain('wrote orange.config.ts');
    const text = await readFile(join(repo, 'orange.config.ts'), 'utf8');
    expect(text).toContain("import { defineConfig } from '@orange/core';");
    expect(text).toContain("harness: 'codex',");
    expect(text).toMatch(/^\/\/ /m);
    const doctor = await box.json<{ config: string; harnesses: { name: string; installed: boolean; version: string | null }[] }>(['doctor'], { cwd: repo, env });
    expect(doctor.config).toBe(join(repo, 'orange.config.ts'));
    expect(doctor.harnesses.find((h) => h.name === 'codex')).toEqual(expect.objectContaining({ installed: true, version: 'codex-cli 0.42.0' }));
  });

  it('refuses to overwrite the config without --force, changing nothing, and overwrites with it', async () => {
    const repo = await freshClone();
    await writeFile(join(repo, 'orange.config.ts'), '// ours\nexport default {};\n');
    const refused = await box.orange(['init', '--no-register'], { cwd: repo, env });
    expect(refused, explain(refused)).toEqual({ code: 1, stdout: '', stderr: `orange: orange.config.ts already exists in ${repo}; pass --force to overwrite` });
    expect(await readFile(join(repo, 'orange.config.ts'), 'utf8')).toBe('// ours\nexport default {};\n');
    const forced = await box.orange(['init', '--no-register', '--force'], { cwd: repo, env });
    expect(forced.code, explain(forced)).toBe(0);
    expect(await readFile(join(repo, 'orange.config.ts'), 'utf8')).toContain("harness: 'codex',");
  });

  it('registers the repository with --register, and does not without a terminal to ask', async () => {
    const asked = await freshClone();
    const unasked = await box.orange(['init'], { cwd: asked, env });
    expect(unasked.code, explain(unasked)).toBe(0);
    expect(unasked.stdout).toContain('not registered; register it with: orange project add');
    const registered = await freshClone();
    const out = await box.json<{ registered: boolean; project: { name: string; path: string } }>(['init', '--register'], { cwd: registered, env });
    expect(out).toMatchObject({ registered: true, project: { name: basename(registered), path: registered } });
    const projects = await box.json<{ projects: { name: string }[] }>(['project', 'list'], { env });
    expect(projects.projects.map((p) => p.name)).toEqual([basename(registered)]);
  });

  it('refuses a harness that is not registered and a plugin name that is not kebab-case', async () => {
    const repo = await freshClone();
    const harness = await box.jsonError(['init', '--no-register', '--harness', 'gemni'], { cwd: repo, env });
    expect(harness).toMatchObject({ code: 'E_HARNESS', exit: 1 });
    const plugin = await box.jsonError(['init', '--no-register', '--plugin', 'Notify_Team'], { cwd: repo, env });
    expect(plugin).toMatchObject({ code: 'E_INVALID_INPUT', exit: 1, error: 'plugin name "Notify_Team" must be kebab-case (a-z, 0-9, single dashes), e.g. notify-slack' });
  });

  it('scaffolds a local plugin and its test with --plugin: the config loads it and the test passes as generated', async () => {
    const repo = await freshClone();
    const result = await box.orange(['init', '--no-register', '--plugin', 'notify-team'], { cwd: repo, env });
    expect(result.code, explain(result)).toBe(0);
    expect(result.stdout.split('\n').filter((l) => l.startsWith('wrote '))).toEqual(['wrote orange.config.ts', 'wrote plugins/notify-team.ts', 'wrote plugins/notify-team.test.ts']);
    // The packages are not on npm: a CLI run from a clone names its own core folder, which npm installs from.
    const core = join(root, 'packages', 'core');
    expect(result.stdout).toContain(`test it with: npm install -D vitest zod ${core} && npx vitest run plugins/notify-team.test.ts`);
    expect(await readFile(join(repo, 'orange.config.ts'), 'utf8')).toContain(`\`npm install -D ${core} zod\` gives your editor the types.`);
    const doctor = await box.json<{ plugins: { name: string; from: string }[] }>(['doctor'], { cwd: repo, env });
    expect(doctor.plugins.find((p) => p.name === 'notify-team')?.from).toMatch(/^plugins\/notify-team\.ts:\d+$/);

    // The team installs vitest, @orange/core and zod; here they come from the monorepo.
    await symlink(join(root, 'node_modules'), join(repo, 'node_modules'));
    const test = await execa(process.execPath, [join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', 'plugins/notify-team.test.ts'], { cwd: repo, reject: false, env: { ...process.env, CI: '1' } });
    expect(test.exitCode, `${test.stdout}\n${test.stderr}`).toBe(0);
    expect(String(test.stdout)).toMatch(/3 passed/);
  });

  it('adds a plugin to a repository that has a config, leaving the config alone and saying how to wire it', async () => {
    const repo = await freshClone();
    await writeFile(join(repo, 'orange.config.ts'), '// ours\nexport default {};\n');
    const out = await box.json<{ files: string[]; next: string }>(['init', '--no-register', '--plugin', 'audit'], { cwd: repo, env });
    expect(out.files).toEqual(['plugins/audit.ts', 'plugins/audit.test.ts']);
    expect(out.next).toBe("import { audit } from './plugins/audit.js' and add audit() to plugins in orange.config.ts");
    expect(await readFile(join(repo, 'orange.config.ts'), 'utf8')).toBe('// ours\nexport default {};\n');
    const again = await box.jsonError(['init', '--no-register', '--plugin', 'audit'], { cwd: repo, env });
    expect(again).toMatchObject({ code: 'E_NOT_ALLOWED', error: `plugins/audit.ts, plugins/audit.test.ts already exist in ${repo}; pass --force to overwrite` });
  });

  it('with --plugin --force overwrites the plugin files but never an existing config', async () => {
    const repo = await freshClone();
    await writeFile(join(repo, 'orange.config.ts'), '// ours\nexport default {};\n');
    await mkdir(join(repo, 'plugins'));
    await writeFile(join(repo, 'plugins', 'audit.ts'), '// an old draft\n');
    const out = await box.json<{ files: string[]; next: string }>(['init', '--no-register', '--plugin', 'audit', '--force'], { cwd: repo, env });
    expect(out.files).toEqual(['plugins/audit.ts', 'plugins/audit.test.ts']);
    expect(out.next).toBe("import { audit } from './plugins/audit.js' and add audit() to plugins in orange.config.ts");
    expect(await readFile(join(repo, 'orange.config.ts'), 'utf8')).toBe('// ours\nexport default {};\n');
    expect(await readFile(join(repo, 'plugins', 'audit.ts'), 'utf8')).toContain('parsePluginOptions');
  });

  it('refuses to write orange.config.ts where a config loaded before it exists, with --force too, naming the file that wins', async () => {
    const cases: Array<[string, string, string]> = [
      ['package.json', JSON.stringify({ name: 'app', orange: { poolSize: 3 } }), 'package.json ("orange" property)'],
      ['.orangerc.yaml', 'poolSize: 3\n', '.orangerc.yaml'],
    ];
    for (const [file, text, named] of cases) {
      const repo = await freshClone();
      await writeFile(join(repo, file), text);
      for (const args of [['init', '--no-register'], ['init', '--no-register', '--force']]) {
        const refused = await box.orange(args, { cwd: repo, env });
        expect(refused, `${file}: ${args.join(' ')}\n${explain(refused)}`).toEqual({
          code: 1,
          stdout: '',
          stderr: `orange: ${named} configures Orange in ${repo} and is loaded before orange.config.ts, so a new orange.config.ts would be ignored; edit ${named}, or move its settings out of it and run orange init again`,
        });
        expect(existsSync(join(repo, 'orange.config.ts'))).toBe(false);
      }
      // The file that wins is still the one Orange loads.
      const doctor = await box.json<{ config: string }>(['doctor'], { cwd: repo, env });
      expect(doctor.config).toBe(join(repo, file));
    }
  });

  it('with --plugin and a JSON or YAML config, keeps it and says it cannot list plugins', async () => {
    const repo = await freshClone();
    await writeFile(join(repo, '.orangerc.json'), '{ "poolSize": 3 }\n');
    const out = await box.json<{ files: string[]; next: string }>(['init', '--no-register', '--plugin', 'audit'], { cwd: repo, env });
    expect(out.files).toEqual(['plugins/audit.ts', 'plugins/audit.test.ts']);
    expect(out.next).toBe(
      ".orangerc.json cannot list plugins (only a .ts or .js config can): move its settings into orange.config.ts, import { audit } from './plugins/audit.js' and add audit() to plugins in it",
    );
    expect(existsSync(join(repo, 'orange.config.ts'))).toBe(false);
  });

  it('refuses to write beside a config loaded after orange.config.ts unless --force, and then orange.config.ts is the one loaded', async () => {
    const repo = await freshClone();
    await writeFile(join(repo, 'orange.config.mjs'), 'export default { poolSize: 3 };\n');
    const refused = await box.orange(['init', '--no-register'], { cwd: repo, env });
    expect(refused, explain(refused)).toEqual({
      code: 1,
      stdout: '',
      stderr: `orange: orange.config.mjs already configures Orange in ${repo}; edit it, or pass --force to write orange.config.ts, which is loaded before it and leaves it unused`,
    });
    expect(existsSync(join(repo, 'orange.config.ts'))).toBe(false);
    const forced = await box.orange(['init', '--no-register', '--force'], { cwd: repo, env });
    expect(forced.code, explain(forced)).toBe(0);
    const doctor = await box.json<{ config: string }>(['doctor'], { cwd: repo, env });
    expect(doctor.config).toBe(join(repo, 'orange.config.ts'));
  });
});


describe('coreInstallSpec', () => {
  it("names a clone's packages/core, and the package (with where to get it) for an installed CLI", async () => {
    const { coreInstallSpec } = await import('../src/commands/init.js');
    expect(coreInstallSpec(join(root, 'packages', 'cli'))).toBe(join(root, 'packages', 'core'));
    // Installed from tarballs: @orange/core beside it in node_modules is an install, not a source.
    const prefix = join(root, 'node_modules', '.orange-init-test', 'lib', 'node_modules', '@orange');
    await mkdir(join(prefix, 'core'), { recursive: true });
    try {
      await writeFile(join(prefix, 'core', 'package.json'), JSON.stringify({ name: '@orange/core' }));
      expect(coreInstallSpec(join(prefix, 'cli'))).toBe('@orange/core');
    } finally {
      await rm(join(root, 'node_modules', '.orange-init-test'), { recursive: true, force: true });
    }
  });
});
