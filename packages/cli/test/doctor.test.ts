/**
 * `orange doctor`: what the config loads and which file provides each part, every workflow
 * validated, the harnesses, tools and ORANGE_HOME checked; exit 1 with one stderr line per problem.
 */
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliSandbox, root, type CliResult } from './cli-sandbox.js';

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
  workflows: { name: string; from: string; ok: boolean }[];
  tools: { name: string; version: string | null }[];
  problems: string[];
  notes: string[];
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
    expect(report.workflows.find((w) => w.name === 'tested')).toEqual({ name: 'tested', from: 'orange.config.ts', ok: true });
    // Every built-in says so (the core's own notifications plugin, the pipeline workflow), and the
    // pipeline driver, which starts Orange's own code, is not offered as an agent harness.
    expect(report.plugins.filter((p) => p.from === 'unknown'), result.stdout).toEqual([]);
    expect(report.workflows.find((w) => w.name === 'pipeline')?.from).toBe('built-in');
    expect(report.harnesses.map((h) => h.name)).not.toContain('pipeline-driver');
    expect(report.tools.find((t) => t.name === 'git')?.version).toMatch(/^\d+\.\d+/);
    expect(report.problems).toEqual([]);
    // The sandbox's PATH has no gh: a note, not a problem.
    expect(report.notes.join('\n')).toContain('gh is not installed');
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

  it('notes model tiers the pipeline breaker keeps out of reach, and tiers a harness cannot price while a budget is in force', async () => {
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
    const bin = join(box.dir, 'bin-codex');
    await mkdir(bin, { recursive: true });
    await writeFile(join(bin, 'codex'), '#!/bin/sh\necho "codex-cli 0.50.0"\n');
    await chmod(join(bin, 'codex'), 0o755);
    const result = await box.orange(['doctor', '--json'], { cwd: dir, env: { PATH: `${bin}:${env.PATH}` } });
    expect(result.code, explain(result)).toBe(0);
    const report = JSON.parse(result.stdout) as Report;
    expect(report.problems).toEqual([]);
    const notes = report.notes.filter((n) => n.startsWith('pipeline:'));
    expect(notes).toEqual([
      'pipeline: with attempts 2 and breaker 3, a claude task that keeps failing from tier haiku ends failed before it reaches opus (breaker 5 reaches it; docs/workflows.md, departure 4)',
      'pipeline: with attempts 2 and breaker 3, a codex task that keeps failing from tier gpt-5-codex-mini ends failed before it reaches gpt-5 (breaker 5 reaches it; docs/workflows.md, departure 4)',
      'pipeline: harness codex has no price for gpt-5-codex, gpt-5: while a budget is in force (default $4.00 a task) those runs count $0; add them to its prices',
    ]);
    // Without the pipeline in use, nothing is said about it.
    const plain = await box.orange(['doctor', '--json'], { cwd: join(root, 'examples', 'custom-hook-plugin'), env: { PATH: `${bin}:${env.PATH}` } });
    expect((JSON.parse(plain.stdout) as Report).notes.filter((n) => n.startsWith('pipeline:'))).toEqual([]);
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
});
