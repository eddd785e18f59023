import { existsSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { basename, dirname, join, relative, sep } from 'node:path';
import { createInterface } from 'node:readline/promises';
import * as Flags from '@oclif/core/flags';
import { CONFIG_SEARCH_PLACES, configFilesIn, inlineText, OrangeError, OrangePaths, writeFileAtomic, type Orange, type Project } from '@orange/core';
import { OrangeCommand } from '../command/base-command.js';
import { inspectRepository } from '../init/repository.js';

export default class Init extends OrangeCommand {
  static override summary = 'Write a typed orange.config.ts for this repository (and a local plugin with --plugin).';
  static override description = [
    'The config names the harness found installed (claude, codex, …). It then offers to register the',
    'repository as a project: --register / --no-register answer without asking; without a terminal',
    'it is not registered. Existing files are never overwritten without --force. With --plugin, a',
    'config is written only where there is none (--force then overwrites the plugin files only).',
    'Refuses to write orange.config.ts where another config file (package.json#orange, .orangerc*,',
    'orange.config.js, …) is in the repository root, and even with --force where that file would',
    'still be the one loaded.',
  ].join(' ');
  static override examples = [
    '<%= config.bin %> init',
    '<%= config.bin %> init --no-register --harness codex',
    '<%= config.bin %> init --plugin notify-slack',
  ];
  static override flags = {
    harness: Flags.string({ description: 'Harness to write into the config (default: the first installed one).' }),
    register: Flags.boolean({ description: 'Register the repository as a project (--no-register: do not; default: ask on a terminal).', allowNo: true }),
    plugin: Flags.string({ description: 'Also scaffold plugins/NAME.ts and plugins/NAME.test.ts (kebab-case NAME).' }),
    force: Flags.boolean({ description: 'Overwrite files that exist (with --plugin: the plugin files, never the config).', default: false }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Init);
    const { configText, factoryName, pluginText, pluginTestText, PLUGIN_NAME } = await import('../init/scaffold.js');
    if (flags.plugin !== undefined && !PLUGIN_NAME.test(flags.plugin)) {
      throw new OrangeError('E_INVALID_INPUT', `plugin name "${inlineText(flags.plugin)}" must be kebab-case (a-z, 0-9, single dashes), e.g. notify-slack`);
    }
    const repo = await inspectRepository(process.cwd());
    // The repository's own config is not loaded: init must work where it is missing or broken.
    const orange = await builtInOrange();
    const harnesses = await Promise.all([...orange.harnesses.values()].filter((h) => !h.internal).map(async (h) => ({ name: h.name, installed: await h.installed() })));
    if (flags.harness !== undefined && !harnesses.some((h) => h.name === flags.harness)) {
      throw new OrangeError('E_HARNESS', `no harness named "${inlineText(flags.harness)}" (known: ${harnesses.map((h) => h.name).join(', ')})`);
    }
    const harness = flags.harness ?? harnesses.find((h) => h.installed)?.name ?? null;

    const configFile = join(repo.path, 'orange.config.ts');
    const present = await configFilesIn(repo.path);
    // With --plugin a config is written only where there is none: an existing one is the team's own.
    const writeConfig = flags.plugin === undefined || present.length === 0;
    if (writeConfig) refuseShadowedConfig(repo.path, present, flags.force);
    const files: Array<{ path: string; text: string }> = [];
    const coreSpec = coreInstallSpec(this.config.root);
    if (writeConfig) files.push({ path: configFile, text: configText({ harness, harnesses, plugin: flags.plugin, coreSpec }) });
    if (flags.plugin !== undefined) {
      files.push({ path: join(repo.path, 'plugins', `${flags.plugin}.ts`), text: pluginText(flags.plugin) });
      files.push({ path: join(repo.path, 'plugins', `${flags.plugin}.test.ts`), text: pluginTestText(flags.plugin) });
    }
    // Every refusal before anything is written: a half-scaffolded repository helps no one.
    const existing = files.filter((f) => existsSync(f.path)).map((f) => relative(repo.path, f.path));
    if (existing.length > 0 && !flags.force) {
      throw new OrangeError('E_NOT_ALLOWED', `${existing.join(', ')} already exist${existing.length === 1 ? 's' : ''} in ${repo.path}; pass --force to overwrite`);
    }
    for (const file of files) {
      await mkdir(join(file.path, '..'), { recursive: true });
      await writeFileAtomic(file.path, file.text);
    }
    const written = files.map((f) => relative(repo.path, f.path));

    const project = (await orange.projects.list()).find((p) => p.path === repo.path) ?? null;
    const register = project === null && (flags.register ?? (this.json ? false : await ask(`Register ${repo.path} as project ${repo.suggestedName}?`)));
    const added: Project | null = register
      ? await orange.projects.add({ name: repo.suggestedName, path: repo.path, default_branch: repo.defaultBranch, pool_size: orange.config.poolSize })
      : null;
    if (added) orange.log.info('project added', { project: added.name, path: added.path });

    const pluginHint = flags.plugin !== undefined && !writeConfig ? wiringHint(relative(repo.path, present[0] as string), flags.plugin, factoryName(flags.plugin)) : null;
    this.emit({ files: written, harness, project: added ?? project, registered: added !== null, ...(pluginHint ? { next: pluginHint } : {}) }, () => {
      for (const file of written) this.log(`wrote ${file}`);
      this.log(harness ? `harness: ${harness}` : `no agent CLI is installed (${harnesses.map((h) => h.name).join(', ')}); install one and set harness in orange.config.ts`);
      if (added) this.log(`registered project ${added.name} (${added.path})`);
      else if (project) this.log(`already registered as project ${project.name}`);
      else this.log('not registered; register it with: orange project add');
      if (pluginHint) this.log(`next: ${pluginHint}`);
      if (flags.plugin !== undefined) this.log(`test it with: npm install -D vitest zod ${coreSpec} && npx vitest run plugins/${flags.plugin}.test.ts${coreSpec === '@orange/core' ? ` ${CORE_NOT_ON_NPM}` : ''}`);
      this.log('check it with: orange doctor');
    });
  }
}

/**
 * Refuses to write an orange.config.ts that would not be the config Orange loads, or would sit
 * beside another one: `present` are the repository root's config files in search order. A file
 * found before orange.config.ts (package.json#orange, .orangerc*) wins even over a new one, so it is
 * refused with --force too; one found after it (orange.config.js, …) would be left unused, so
 * only --force writes past it.
 */
function refuseShadowedConfig(root: string, present: readonly string[], force: boolean): void {
  const target = CONFIG_SEARCH_PLACES.indexOf('orange.config.ts');
  const rank = (file: string) => CONFIG_SEARCH_PLACES.indexOf(basename(file));
  const name = (file: string) => (basename(file) === 'package.json' ? 'package.json ("orange" property)' : basename(file));
  const winner = present.find((file) => rank(file) < target);
  if (winner !== undefined) {
    throw new OrangeError(
      'E_NOT_ALLOWED',
      `${name(winner)} configures Orange in ${root} and is loaded before orange.config.ts, so a new orange.config.ts would be ignored; edit ${name(winner)}, or move its settings out of it and run orange init again`,
      { file: winner },
    );
  }
  const others = present.filter((file) => rank(file) > target);
  if (others.length > 0 && !force) {
    throw new OrangeError(
      'E_NOT_ALLOWED',
      `${others.map(name).join(', ')} already configure${others.length === 1 ? 's' : ''} Orange in ${root}; edit it, or pass --force to write orange.config.ts, which is loaded before it and leaves it unused`,
      { file: others[0] },
    );
  }
}

/** What to do with a scaffolded plugin when the repository already has a config (`config`, relative to the root). */
function wiringHint(config: string, plugin: string, factory: string): string {
  const add = `import { ${factory} } from './plugins/${plugin}.js' and add ${factory}() to plugins in`;
  // JSON and YAML configs hold settings only: plugins are values, made in code.
  return /\.(ts|mts|js|mjs)$/.test(config) ? `${add} ${config}` : `${config} cannot list plugins (only a .ts or .js config can): move its settings into orange.config.ts, ${add} it`;
}

/** Orange with the built-in plugins only (for the harnesses and the project store). */
async function builtInOrange(): Promise<Orange> {
  const [{ Orange: OrangeClass }, { defaultPlugins }] = await Promise.all([import('@orange/core'), import('../startup/default-plugins.js')]);
  return OrangeClass.create({}, { paths: OrangePaths.fromEnv(), defaultPlugins });
}

/** Yes unless answered no; false without a terminal (a script or an agent cannot answer). */
async function ask(question: string): Promise<boolean> {
  if (!process.stdin.isTTY || !process.stderr.isTTY) return false;
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = (await rl.question(`${inlineText(question)} [Y/n] `)).trim().toLowerCase();
    return answer === '' || answer === 'y' || answer === 'yes';
  } finally {
    rl.close();
  }
}

/**
 * What `npm install` takes for @orange/core here: the packages are not on npm yet, so a CLI that
 * runs from a clone of Orange names its own `packages/core` folder (which npm installs from the
 * path); an installed CLI (from packed tarballs, or one day the registry) names the package.
 */
export function coreInstallSpec(cliRoot: string): string {
  const core = join(cliRoot, '..', 'core');
  // Only a clone's `packages/core`: an installed CLI's neighbour in node_modules is an install, not
  // something to install from (npm would link a project to the global install).
  const clone = basename(dirname(cliRoot)) === 'packages' && !cliRoot.split(sep).includes('node_modules');
  try {
    const manifest = JSON.parse(readFileSync(join(core, 'package.json'), 'utf8')) as { name?: unknown };
    // Quoted for a shell when it must be: the line is meant to be pasted.
    if (clone && manifest.name === '@orange/core') return /^[\w@%+=:,./-]+$/.test(core) ? core : `'${core.replace(/'/g, "'\\''")}'`;
  } catch {
    // Not a clone: the package by name.
  }
  return '@orange/core';
}

/** Said after an install line that names the package: it is not on npm yet. */
export const CORE_NOT_ON_NPM = '(@orange/core is not on npm yet: install the tarball Orange came with, see docs/install.md)';
