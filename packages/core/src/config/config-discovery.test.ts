/**
 * The config file kinds config.test.ts does not load — `orange.config.js` and the YAML rc files —
 * and which file wins when several are found: the first of CONFIG_SEARCH_PLACES in the nearest
 * directory that has one.
 */
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CONFIG_SEARCH_PLACES, configFilesIn, ConfigSchema, loadConfig } from './config.js';
import { Orange } from '../orange.js';
import { OrangePaths } from '../store/paths.js';

let dir: string;
beforeEach(async () => {
  // realpath: cosmiconfig reports the file under the resolved path (macOS /var → /private/var).
  dir = await realpath(await mkdtemp(join(tmpdir(), 'orange-config-')));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function write(name: string, text: string): Promise<string> {
  const file = join(dir, name);
  await mkdir(resolve(file, '..'), { recursive: true });
  await writeFile(file, text);
  return file;
}

/** A package.json that makes `.js` files ES modules, as in an `"type": "module"` repository. */
const ESM_PACKAGE = JSON.stringify({ name: 'app', type: 'module' });

/** Config text setting `poolSize` in the format the search place's name implies. */
function configText(place: string, poolSize: number): string {
  if (place === 'package.json') return JSON.stringify({ name: 'app', type: 'module', orange: { poolSize } });
  switch (extname(place)) {
    case '.json':
      return JSON.stringify({ poolSize });
    case '.js':
    case '.mjs':
      return `export default { poolSize: ${poolSize} };\n`;
    case '.ts':
    case '.mts':
      return `const size: number = ${poolSize};\nexport default { poolSize: size };\n`;
    default:
      // .orangerc (no extension), .yaml, .yml: YAML.
      return `# orange\npoolSize: ${poolSize}\n`;
  }
}

describe('orange.config.js', () => {
  it('loads an ES module default export in a "type": "module" package', async () => {
    await write('package.json', ESM_PACKAGE);
    const file = await write('orange.config.js', 'const size = 3;\nexport default { poolSize: size, harness: "codex" };\n');
    const loaded = await loadConfig(dir);
    expect(loaded.file).toBe(file);
    expect(loaded.config).toMatchObject({ poolSize: 3, harness: 'codex' });
  });

  it('loads module.exports in a CommonJS package', async () => {
    await write('package.json', JSON.stringify({ name: 'app', type: 'commonjs' }));
    const file = await write('orange.config.js', 'module.exports = { poolSize: 4, logLevel: "warn" };\n');
    const loaded = await loadConfig(dir);
    expect(loaded.file).toBe(file);
    expect(loaded.config).toMatchObject({ poolSize: 4, logLevel: 'warn' });
  });

  it('loads .orangerc.js the same way', async () => {
    await write('package.json', ESM_PACKAGE);
    const file = await write('.orangerc.js', 'export default { reviewHarness: "claude" };\n');
    const loaded = await loadConfig(dir);
    expect(loaded.file).toBe(file);
    expect(loaded.config.reviewHarness).toBe('claude');
  });

  it('reports a config that throws while loading as one E_CONFIG line', async () => {
    await write('package.json', ESM_PACKAGE);
    const file = await write('orange.config.js', 'throw new Error("no config today");\n');
    const error = await loadConfig(dir).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'E_CONFIG', message: `${file}:1:7: no config today` });
  });
});

describe('YAML rc files', () => {
  it.each(['.orangerc.yaml', '.orangerc.yml', '.orangerc'])('loads %s as YAML', async (name) => {
    const file = await write(name, '# shared by the team\nharness: claude\nreviewHarness: codex\npoolSize: 3\nlogLevel: debug\n');
    const loaded = await loadConfig(dir);
    expect(loaded.file).toBe(file);
    expect(loaded.config).toMatchObject({ harness: 'claude', reviewHarness: 'codex', poolSize: 3, logLevel: 'debug' });
  });

  it('reads JSON text in an extensionless .orangerc (JSON is YAML)', async () => {
    await write('.orangerc', JSON.stringify({ poolSize: 5, workflow: 'classic' }));
    expect((await loadConfig(dir)).config).toMatchObject({ poolSize: 5, workflow: 'classic' });
  });

  it('reads a whole workflow definition written in YAML, one Orange.create accepts', async () => {
    await write(
      '.orangerc.yml',
      `workflow: tiny
workflows:
  - name: tiny
    initial: pending
    start: working
    states:
      pending: {}
      working: { agent: worker, prompt: worker }
      done: { terminal: true }
    transitions:
      - { from: pending, to: working, by: [person, orange] }
      - { from: working, to: done, by: [agent, orange] }
    exit:
      pending: { otherwise: mark }
      working: { advance: [done], otherwise: mark }
    create:
      pending: { hooks: [] }
    prompts:
      worker: "# {summary}"
`,
    );
    const { config } = await loadConfig(dir);
    expect(config.workflow).toBe('tiny');
    expect(config.workflows.map((w) => w.name)).toEqual(['tiny']);
    const orange = await Orange.create(config, { paths: new OrangePaths(join(dir, 'home')) });
    expect(orange.workflow().states).toEqual(['pending', 'working', 'done']);
  });

  it('treats an empty YAML file as the defaults', async () => {
    await write('.orangerc.yaml', '');
    const loaded = await loadConfig(dir);
    expect(loaded.config).toEqual(ConfigSchema.parse({}));
  });

  it('names the YAML file and the field of a bad value', async () => {
    const file = await write('.orangerc.yml', 'logLevel: loud\n');
    const error = await loadConfig(dir).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'E_CONFIG', details: { file, field: 'logLevel' } });
    expect((error as Error).message).toContain(`${file}: field "logLevel"`);
  });

  it('reports YAML that does not parse as one E_CONFIG line', async () => {
    const file = await write('.orangerc.yaml', 'poolSize: [3\n');
    const error = await loadConfig(dir).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'E_CONFIG', message: `${file}:2:1: unexpected end of the stream within a flow collection` });
  });
});

describe('precedence', () => {
  it('searches the places in the documented order', () => {
    expect(CONFIG_SEARCH_PLACES).toEqual([
      'package.json',
      '.orangerc',
      '.orangerc.json',
      '.orangerc.yaml',
      '.orangerc.yml',
      '.orangerc.js',
      '.orangerc.mjs',
      '.orangerc.ts',
      'orange.config.ts',
      'orange.config.mts',
      'orange.config.js',
      'orange.config.mjs',
    ]);
  });

  it('loads the first place that exists when every kind is in one directory, then the next as each winner goes', async () => {
    const files = [];
    for (const [i, place] of CONFIG_SEARCH_PLACES.entries()) files.push(await write(place, configText(place, i + 1)));
    for (const [i, place] of CONFIG_SEARCH_PLACES.entries()) {
      const loaded = await loadConfig(dir);
      expect({ file: loaded.file, poolSize: loaded.config.poolSize }).toEqual({ file: files[i], poolSize: i + 1 });
      // package.json stays (the .js files need its "type"), without the "orange" key.
      if (place === 'package.json') await write(place, ESM_PACKAGE);
      else await rm(join(dir, place));
    }
    expect((await loadConfig(dir)).file).toBeNull();
  });

  it.each([
    ['.orangerc.json', 'orange.config.ts'],
    ['.orangerc.json', '.orangerc.yaml'],
    ['.orangerc', '.orangerc.yml'],
    ['.orangerc.ts', 'orange.config.js'],
    ['orange.config.js', 'orange.config.mjs'],
  ])('loads %s over %s', async (earlier, later) => {
    expect(CONFIG_SEARCH_PLACES.indexOf(earlier)).toBeLessThan(CONFIG_SEARCH_PLACES.indexOf(later));
    await write('package.json', ESM_PACKAGE);
    await write(later, configText(later, 2));
    const file = await write(earlier, configText(earlier, 1));
    const loaded = await loadConfig(dir);
    expect(loaded.file).toBe(file);
    expect(loaded.config.poolSize).toBe(1);
  });

  it('configFilesIn lists the config files of one directory in search order without running them, the first being the one loaded', async () => {
    await write('package.json', ESM_PACKAGE);
    await write('.orangerc', '');
    expect(await configFilesIn(dir)).toEqual([]);
    const mjs = await write('orange.config.mjs', 'throw new Error("never run");\n');
    const yaml = await write('.orangerc.yaml', configText('.orangerc.yaml', 3));
    expect(await configFilesIn(dir)).toEqual([yaml, mjs]);
    expect((await loadConfig(dir)).file).toBe(yaml);
    const pkg = await write('package.json', configText('package.json', 2));
    expect(await configFilesIn(dir)).toEqual([pkg, yaml, mjs]);
    expect((await loadConfig(dir)).file).toBe(pkg);
  });

  it('lets a nearer directory win over a parent, whatever the file kinds', async () => {
    await write('package.json', JSON.stringify({ name: 'root', orange: { poolSize: 1 } }));
    const near = await write('packages/app/.orangerc.yml', 'poolSize: 2\n');
    const loaded = await loadConfig(join(dir, 'packages', 'app'));
    expect(loaded.file).toBe(near);
    expect(loaded.config.poolSize).toBe(2);
  });

  it('does not fall back to another file when the winner is invalid', async () => {
    const file = await write('.orangerc.json', JSON.stringify({ poolSize: 0 }));
    await write('.orangerc.yaml', 'poolSize: 3\n');
    const error = await loadConfig(dir).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'E_CONFIG', details: { file, field: 'poolSize' } });
  });
});
