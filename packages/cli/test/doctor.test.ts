/**
 * `orange doctor`: what the config loads and which file provides each part, every workflow
 * validated, the harnesses, tools and ORANGE_HOME checked; exit 1 with one stderr line per problem.
 */
import { readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { cannotRunHere, NOBODY, nobodyCannotRead } from '@orange/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, CliSandbox, root, type CliResult } from './cli-sandbox.js';

let box: CliSandbox;
let env: Record<string, string>;
beforeAll(async () => {
  box = await CliSandbox.create({ project: null });
  const bin = join(box.dir, 'bin');
  await mkdir(bin);
  await writeFile(join(bin, 'claude'), '#!/bin/sh\necho "2.1.0 (Claude Code)"\n');
  await chmod(join(bin, 'claude'), 0o755);
  env = { PATH: `${bin}:${box.env.PATH}` };
});
afterAll(() => box?.cleanup());

function explain(result: CliResult): string {
  return `exit ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`;
}

interface Report {
  config: string;
  plugins: { name: string; from: string }[];
  gates: { name: string; from: string }[];
  actions: { name: string; plugins: string[]; from: string[] }[];
  harnesses: { name: string; installed: boolean; version: string | null; from: string }[];
  workflows: { name: string; plugin: string | null; from: string; ok: boolean }[];
  tools: { name: string; version: string | null }[];
  versions: { cli: string; bundled: Record<string, string>; installed: { name: string; version: string; path: string; expected: string; ok: boolean }[] };
  problems: string[];
  notes: string[];
}

/** A folder holding a stand-in `codex` that prints a version, for a PATH. */
async function standInCodex(): Promise<string> {
  const bin = join(box.dir, 'bin-codex');
  await mkdir(bin, { recursive: true });
  await writeFile(join(bin, 'codex'), '#!/bin/sh\necho "codex-cli 0.50.0"\n');
  await chmod(join(bin, 'codex'), 0o755);
  return bin;
}

async function configDir(name: string, text: string): Promise<string> {
  const dir = join(box.dir, name);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'orange.config.ts'), text);
  return dir;
}

describe('orange doctor', () => {
  it('names the file that provides each plugin, gate and action of the example plugin’s config, and finds no problem', async () => {
    const cwd = join(root, 'examples', 'custom-hook-plugin');
    const result = await box.orange(['doctor', '--json'], { cwd, env });
    expect(result.code, explain(result)).toBe(0);
    const report = JSON.parse(result.stdout) as Report;
    expect(report.config).toBe(join(cwd, 'orange.config.ts'));
    expect(report.plugins.find((p) => p.name === 'tmux')?.from).toBe('built-in');
    expect(report.plugins.find((p) => p.name === 'transition-log')?.from).toMatch(/^src\/transition-log\.ts:\d+$/);
    expect(report.gates.find((g) => g.name === 'tests-pass')?.from).toMatch(/^src\/tests-pass\.ts:\d+$/);
    expect(report.gates.find((g) => g.name === 'plan')?.from).toBe('built-in');
    expect(report.actions.find((a) => a.name === 'format')).toMatchObject({ plugins: ['run-command:format'], from: [expect.stringMatching(/^src\/run-command\.ts:\d+$/)] });
    expect(report.harnesses.find((h) => h.name === 'claude')).toEqual({ name: 'claude', installed: true, version: '2.1.0 (Claude Code)', from: 'built-in' });
    expect(report.workflows.find((w) => w.name === 'tested')).toEqual({ name: 'tested', plugin: null, from: 'orange.config.ts', ok: true });
    // Every built-in says so (the core's own notifications plugin, the pipeline workflow), and the
    // pipeline driver, which starts Orange's own code, is not offered as an agent harness.
    expect(report.plugins.filter((p) => p.from === 'unknown'), result.stdout).toEqual([]);
    expect(report.workflows.find((w) => w.name === 'pipeline')).toMatchObject({ plugin: null, from: 'built-in' });
    expect(report.harnesses.map((h) => h.name)).not.toContain('pipeline-driver');
    expect(report.tools.find((t) => t.name === 'git')?.version).toMatch(/^\d+\.\d+/);
    expect(report.problems).toEqual([]);
    // The sandbox's PATH has no gh: a note, not a problem.
    expect(report.notes).toContain('gh is not installed: pull requests are off, and orange task merge merges locally (no --local needed)');
  });


  it('reads a version printed on stderr, as pi prints it', async () => {
    const bin = join(box.dir, 'bin-pi');
    await mkdir(bin, { recursive: true });
    await writeFile(join(bin, 'pi'), '#!/bin/sh\necho "0.73.1" >&2\n');
    await chmod(join(bin, 'pi'), 0o755);
    const cwd = join(root, 'examples', 'custom-hook-plugin');
    const result = await box.orange(['doctor', '--json'], { cwd, env: { PATH: `${bin}:${env.PATH}` } });
    const report = JSON.parse(result.stdout) as Report;
    expect(report.harnesses.find((h) => h.name === 'pi'), explain(result)).toEqual({ name: 'pi', installed: true, version: '0.73.1', from: 'built-in' });
  });

  it("takes no warning on stderr for a version, and prints what a harness's --version or a repository's package.json say as one inert line", async () => {
    const bin = join(box.dir, 'bin-odd');
    await mkdir(bin, { recursive: true });
    // A warning, not a version, on stderr; and a version line carrying a terminal title sequence.
    await writeFile(join(bin, 'pi'), '#!/bin/sh\necho "warning: no config found" >&2\n');
    await writeFile(join(bin, 'claude'), '#!/bin/sh\nprintf "2.1.0\\033]0;pwned\\007 (Claude Code)\\n"\n');
    await chmod(join(bin, 'pi'), 0o755);
    await chmod(join(bin, 'claude'), 0o755);
    const dir = await configDir('odd-versions', "export default {};\n");
    await mkdir(join(dir, 'node_modules', 'zod'), { recursive: true });
    await writeFile(join(dir, 'node_modules', 'zod', 'package.json'), JSON.stringify({ name: 'zod', version: '3.0.0\n  fake-line  9.9.9\u001b[2J' }));
    const odd = { PATH: `${bin}:${env.PATH}` };
    const report = JSON.parse((await box.orange(['doctor', '--json'], { cwd: dir, env: odd })).stdout) as Report;
    expect(report.harnesses.find((h) => h.name === 'pi')).toMatchObject({ installed: true, version: null });
    const human = await box.orange(['doctor'], { cwd: dir, env: odd });
    expect(human.stdout, explain(human)).toMatch(/^ {2}claude +installed 2\.1\.0␛]0;pwned␇ \(Claude Code\) +built-in$/m);
    expect(human.stdout).toMatch(/^ {2}zod +3\.0\.0⏎ {2}fake-line {2}9\.9\.9␛\[2J +node_modules\/zod/m);
    expect(human.stdout).not.toMatch(/^ +fake-line/m);
    expect(human.stdout).not.toContain('\u001b');
    expect(human.stdout).not.toContain('\u0007');
  });
  it('prints the same for people, with the providers in columns', async () => {
    const result = await box.orange(['doctor'], { cwd: join(root, 'examples', 'custom-hook-plugin'), env });
    expect(result.code, explain(result)).toBe(0);
    expect(result.stdout).toMatch(/^ {2}transition-log +src\/transition-log\.ts:\d+$/m);
    expect(result.stdout).toMatch(/^ {2}tests-pass +src\/tests-pass\.ts:\d+$/m);
    expect(result.stdout).toMatch(/^no problems found$/m);
  });

  it('exits 1 with one line per problem: a guard on an undeclared field, a configured harness not installed, a world-writable ORANGE_HOME', async () => {
    const dir = await configDir(
      'problems',
      `import { defineConfig, defaultWorkflow } from '@orange/core';
const guarded = {
  ...defaultWorkflow,
  name: 'guarded',
  transitions: defaultWorkflow.transitions.map((t) => (t.from === 'working' && t.to === 'agent-review' ? { ...t, guard: 'confidnce >= 0.6' } : t)),
};
export default defineConfig({ harness: 'codex', workflows: [guarded] });
`,
    );
    const home = join(box.dir, 'open-home');
    await mkdir(home, { recursive: true });
    await chmod(home, 0o777);
    const result = await box.orange(['doctor'], { cwd: dir, env: { ...env, ORANGE_HOME: home } });
    expect(result.code, explain(result)).toBe(1);
    expect(result.stderr.split('\n'), explain(result)).toEqual([
      'orange: harness "codex" is not installed on this machine (its agent CLI is not on PATH)',
      'orange: workflow "guarded": transition working → agent-review guard "confidnce >= 0.6" names field "confidnce", which no task has (declare it under fields, or fix the name)',
      `orange: ORANGE_HOME ${home} is writable by every user (mode 777); run: chmod o-w ${home}`,
    ]);
    expect(result.stdout).toMatch(/^ {2}guarded +INVALID +orange\.config\.ts$/m);
    expect(result.stdout).toMatch(/^3 problems$/m);
  });

  it('notes a pipeline with no verification checks, model tiers the breaker keeps out of reach, and tiers a harness cannot price while a budget is in force', async () => {
    const dir = await configDir(
      'pipeline-notes',
      `import { defineConfig } from '@orange/core';
import { pipeline } from '@orange/plugin-pipeline';
import { codex } from '@orange/harness-codex';
export default defineConfig({
  workflow: 'pipeline',
  plugins: [pipeline({ attempts: 2, breaker: 3, budgetUsd: 4 }), codex({ prices: { 'gpt-5-codex-mini': { input: 0.25, output: 2 } } })],
});
`,
    );
    const bin = await standInCodex();
    const result = await box.orange(['doctor', '--json'], { cwd: dir, env: { PATH: `${bin}:${env.PATH}` } });
    expect(result.code, explain(result)).toBe(0);
    const report = JSON.parse(result.stdout) as Report;
    expect(report.problems).toEqual([]);
    const notes = report.notes.filter((n) => n.startsWith('pipeline:'));
    expect(notes).toEqual([
      "pipeline: no verification checks are configured, so every task passes verification once its phases report success; add the project's checks, e.g. pipeline({ verify: [['npm', 'test']] }) (docs/workflows.md, departures from seed 002)",
      'pipeline: with attempts 2 and breaker 3, a claude task that keeps failing from tier haiku ends failed before it reaches opus (breaker 5 reaches it; docs/workflows.md, departure 4)',
      'pipeline: with attempts 2 and breaker 3, a codex task that keeps failing from tier gpt-5-codex-mini ends failed before it reaches gpt-5 (breaker 5 reaches it; docs/workflows.md, departure 4)',
      'pipeline: harness codex has no price for gpt-5-codex, gpt-5: while a budget is in force (default $4.00 a task) those runs count $0; add them to its prices',
    ]);
    // With checks configured, nothing is said about them.
    const verified = await configDir(
      'pipeline-verified',
      `import { pipeline } from '@orange/plugin-pipeline';
export default { workflow: 'pipeline', plugins: [pipeline({ verify: [['npm', 'test']] })] };
`,
    );
    const checked = await box.orange(['doctor', '--json'], { cwd: verified, env: { PATH: `${bin}:${env.PATH}` } });
    expect(checked.code, explain(checked)).toBe(0);
    expect((JSON.parse(checked.stdout) as Report).notes.filter((n) => n.includes('verification checks'))).toEqual([]);
    // Without the pipeline in use, nothing is said about it.
    const plain = await box.orange(['doctor', '--json'], { cwd: join(root, 'examples', 'custom-hook-plugin'), env: { PATH: `${bin}:${env.PATH}` } });
    expect((JSON.parse(plain.stdout) as Report).notes.filter((n) => n.startsWith('pipeline:'))).toEqual([]);
  });

  it("loads the shipped typical config (examples/configs/orange.config.ts) copied into a repository that installed nothing", async () => {
    const dir = await configDir('typical', readFileSync(join(root, 'examples', 'configs', 'orange.config.ts'), 'utf8'));
    const result = await box.orange(['doctor', '--json'], { cwd: dir, env });
    expect(result.code, explain(result)).toBe(0);
    const report = JSON.parse(result.stdout) as Report;
    expect(report.config).toBe(join(dir, 'orange.config.ts'));
    expect(report.problems).toEqual([]);
    expect(report.plugins.find((p) => p.name === 'transition-log')?.from).toMatch(/^orange\.config\.ts:\d+$/);
    expect(report.harnesses.map((h) => h.name)).toContain('aider');
  });

  it('takes the shipped defaults: false config (codex only): the built-in pipeline workflow, whose plugin it does not load, is a note, not 31 problems', async () => {
    const dir = await configDir('codex-only', readFileSync(join(root, 'examples', 'configs', 'codex-only.config.ts'), 'utf8'));
    const bin = await standInCodex();
    const result = await box.orange(['doctor', '--json'], { cwd: dir, env: { PATH: `${bin}:${env.PATH}` } });
    expect(result.code, explain(result)).toBe(0);
    const report = JSON.parse(result.stdout) as Report;
    expect(report.problems).toEqual([]);
    expect(report.workflows.find((w) => w.name === 'pipeline')).toMatchObject({ ok: false, from: 'built-in' });
    expect(report.notes.filter((n) => n.startsWith('built-in workflow "pipeline"'))).toEqual([
      expect.stringMatching(/^built-in workflow "pipeline" is not available with this config \(no project or default uses it\): .+ \(and \d+ more\)$/),
    ]);
    // In use, the same workflow is a problem again.
    const used = await configDir('codex-only-pipeline', `${readFileSync(join(root, 'examples', 'configs', 'codex-only.config.ts'), 'utf8').replace("harness: 'codex',", "harness: 'codex',\n  workflow: 'pipeline',")}`);
    const broken = await box.orange(['doctor', '--json'], { cwd: used, env: { PATH: `${bin}:${env.PATH}` } });
    expect(broken.code, explain(broken)).toBe(1);
  });

  it('says when a plugin replaces a harness another registered under the same name (command({ name: "gemini" }))', async () => {
    const dir = await configDir(
      'replaced-harness',
      `import { defineConfig } from '@orange/core';
import { command } from '@orange/harness-command';
export default defineConfig({ plugins: [command({ name: 'gemini', worker: ['gemini', '{prompt}'] })] });
`,
    );
    const result = await box.orange(['doctor', '--json'], { cwd: dir, env });
    const report = JSON.parse(result.stdout) as Report;
    expect(report.notes, explain(result)).toContain(
      'harness "gemini" of plugin gemini is replaced by the one of plugin command:gemini: whatever names "gemini" gets the latter; give one of them another name to keep both',
    );
  });

  it('reports a config that does not load as its problem, with the place, and exits 1', async () => {
    const dir = await configDir('broken', "import { veto } from './plugins/veto.js';\nexport default { plugins: [veto()] };\n");
    const result = await box.orange(['doctor'], { cwd: dir, env });
    expect(result, explain(result)).toEqual({
      code: 1,
      stdout: '',
      stderr: `orange: ${join(dir, 'orange.config.ts')}: Cannot find module './plugins/veto.js' imported from orange.config.ts:1:22 — check the path (a TypeScript file is imported by its name, with .js or without an extension)`,
    });
    const json = await box.orange(['doctor', '--json'], { cwd: dir, env });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual({ problems: [expect.stringContaining("Cannot find module './plugins/veto.js'")] });
  });

  it('reports tmux missing from PATH as a problem line and exits 1', async () => {
    const dir = await configDir('no-tmux', 'export default {};\n');
    const result = await box.orange(['doctor'], { cwd: dir, env: { PATH: await pathWith('no-tmux', ['git']) } });
    expect(result.code, explain(result)).toBe(1);
    expect(result.stderr, explain(result)).toBe('orange: tmux is not installed (or not on PATH); Orange needs it to run agents');
    expect(result.stdout).toMatch(/^ {2}tmux +not installed$/m);
  });

  it('reports git missing from PATH as a problem line and exits 1', async () => {
    const dir = await configDir('no-git', 'export default {};\n');
    const result = await box.orange(['doctor', '--json'], { cwd: dir, env: { PATH: await pathWith('no-git', ['tmux']) } });
    expect(result.code, explain(result)).toBe(1);
    const report = JSON.parse(result.stdout) as Report;
    expect(report.problems).toEqual(['git is not installed (or not on PATH); Orange needs it']);
    expect(report.tools.find((t) => t.name === 'git')).toMatchObject({ version: null, required: true });
  });

  it('reports a reviewHarness that is not installed', async () => {
    const dir = await configDir('review-harness', "export default { reviewHarness: 'codex' };\n");
    const result = await box.orange(['doctor'], { cwd: dir, env });
    expect(result.code, explain(result)).toBe(1);
    expect(result.stderr, explain(result)).toBe('orange: reviewHarness "codex" is not installed on this machine (its agent CLI is not on PATH)');
  });

  it('reports an ORANGE_HOME this user cannot write as its problem and exits 1', async (context) => {
    // Root may write anywhere: as root, doctor runs as nobody, for whom the home is read-only.
    const asRoot = process.getuid?.() === 0;
    const unreachable = asRoot ? nobodyCannotRead(CLI) : null;
    if (unreachable) cannotRunHere(context, unreachable);
    const dir = await mkdtemp(join(tmpdir(), 'orange-doctor-home-'));
    try {
      await chmod(dir, 0o755);
      const home = join(dir, 'home');
      await mkdir(home, { mode: asRoot ? 0o755 : 0o555 });
      await chmod(home, asRoot ? 0o755 : 0o555);
      await writeFile(join(dir, 'orange.config.mjs'), 'export default {};\n');
      const result = await execa(process.execPath, [CLI, 'doctor'], {
        cwd: dir,
        env: { PATH: env.PATH as string, HOME: dir, ORANGE_HOME: home, ORANGE_TMUX_SOCKET: box.socket },
        extendEnv: false,
        reject: false,
        ...(asRoot ? NOBODY : {}),
      });
      const out = explain({ code: result.exitCode ?? -1, stdout: String(result.stdout), stderr: String(result.stderr) });
      expect(result.exitCode, out).toBe(1);
      expect(String(result.stderr), out).toBe(`orange: ORANGE_HOME ${home} is not writable (set ORANGE_HOME to a writable directory)`);
    } finally {
      await chmod(join(dir, 'home'), 0o755).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('orange doctor in a repository with its own plugins and installed packages', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await configDir(
      'team',
      "import { defineConfig } from '@orange/core';\nimport { flows } from './plugins/flows.js';\n\nexport default defineConfig({ plugins: [flows()] });\n",
    );
    await mkdir(join(dir, 'plugins'));
    await writeFile(
      join(dir, 'plugins', 'flows.ts'),
      [
        "import { defaultWorkflow, definePlugin } from '@orange/core';",
        '',
        '/** Registers the team workflow. */',
        'export function flows() {',
        "  return definePlugin({ name: 'flows', apply(orange) { orange.registerWorkflow({ ...defaultWorkflow, name: 'reviewed' }); } });",
        '}',
        '',
      ].join('\n'),
    );
    // Copies the repository installed for its editor and tests: core a minor release behind the
    // CLI's (a problem), zod as the CLI bundles it, and a plugin only a patch apart (fine).
    const fake = async (name: string, version: string, extra: Record<string, unknown> = {}) => {
      await mkdir(join(dir, 'node_modules', name), { recursive: true });
      await writeFile(join(dir, 'node_modules', name, 'package.json'), JSON.stringify({ name, version, ...extra }));
    };
    await fake('@orange/core', olderMinor(CORE_VERSION));
    await fake('zod', ZOD_VERSION);
    await fake('@orange/harness-codex', `${CORE_VERSION.split('.').slice(0, 2).join('.')}.99`, { keywords: ['orange', 'orange-plugin'], peerDependencies: { '@orange/core': `^${CORE_VERSION}` } });
  });

  it('names the plugin that registered a workflow, and its file', async () => {
    const result = await box.orange(['doctor', '--json'], { cwd: dir, env });
    const report = JSON.parse(result.stdout) as Report;
    expect(report.workflows.find((w) => w.name === 'reviewed'), result.stdout).toEqual({ name: 'reviewed', plugin: 'flows', from: expect.stringMatching(/^plugins\/flows\.ts:\d+$/), ok: true });
    const human = await box.orange(['doctor'], { cwd: dir, env });
    expect(human.stdout).toMatch(/^ {2}reviewed +valid +plugin flows, plugins\/flows\.ts:\d+$/m);
  });

  it('prints the versions of the CLI, of what it bundles and of the installed copies, and a copy a minor version apart is a problem', async () => {
    const result = await box.orange(['doctor', '--json'], { cwd: dir, env });
    expect(result.code, explain(result)).toBe(1);
    const report = JSON.parse(result.stdout) as Report;
    expect(report.versions.cli).toBe(CLI_VERSION);
    expect(report.versions.bundled).toMatchObject({ '@orange/core': CORE_VERSION, zod: ZOD_VERSION, '@orange/harness-codex': CORE_VERSION });
    const core = join(dir, 'node_modules', '@orange', 'core');
    expect(report.versions.installed).toEqual([
      { name: '@orange/core', version: olderMinor(CORE_VERSION), path: core, expected: CORE_VERSION, ok: false },
      { name: '@orange/harness-codex', version: expect.stringMatching(/\.99$/), path: join(dir, 'node_modules', '@orange', 'harness-codex'), expected: CORE_VERSION, ok: true },
      { name: 'zod', version: ZOD_VERSION, path: join(dir, 'node_modules', 'zod'), expected: ZOD_VERSION, ok: true },
    ]);
    const problem = `@orange/core ${olderMinor(CORE_VERSION)} is installed at ${core}, but orange uses ${CORE_VERSION}: configs get orange's copy while your editor and tests get this one; run: npm install -D @orange/core@${CORE_VERSION} (or use the orange release that matches it)`;
    expect(report.problems).toEqual([problem]);

    const human = await box.orange(['doctor'], { cwd: dir, env });
    expect(human.code, explain(human)).toBe(1);
    expect(human.stderr).toBe(`orange: ${problem}`);
    expect(human.stdout).toMatch(new RegExp(`^orange +${escape(CLI_VERSION)} \\(bundles @orange/core ${escape(CORE_VERSION)}, zod ${escape(ZOD_VERSION)}\\)$`, 'm'));
    expect(human.stdout).toMatch(new RegExp(`^ {2}@orange/core +${escape(olderMinor(CORE_VERSION))} +node_modules/@orange/core +MISMATCH: orange uses ${escape(CORE_VERSION)}$`, 'm'));
    expect(human.stdout).toMatch(/^ {2}zod +\S+ +node_modules\/zod$/m);
  });
});

const version = (file: string) => (JSON.parse(readFileSync(join(root, file), 'utf8')) as { version: string }).version;
const CLI_VERSION = version('packages/cli/package.json');
const CORE_VERSION = version('packages/core/package.json');
const ZOD_VERSION = version('node_modules/zod/package.json');

/** The same major, one minor lower (or higher from x.0). */
function olderMinor(v: string): string {
  const [major = '0', minor = '0'] = v.split('.');
  return `${major}.${minor === '0' ? 1 : Number(minor) - 1}.0`;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A PATH of one directory holding the claude stand-in and only the named tools. */
async function pathWith(name: string, tools: string[]): Promise<string> {
  const bin = join(box.dir, `path-${name}`);
  await mkdir(bin);
  await symlink(join(box.dir, 'bin', 'claude'), join(bin, 'claude'));
  for (const tool of tools) {
    const found = await execa('which', [tool]);
    await symlink(String(found.stdout).trim(), join(bin, tool));
  }
  return bin;
}

