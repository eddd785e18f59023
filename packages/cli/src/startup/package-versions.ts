import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/**
 * Versions of the packages inlined into the CLI's bundle (`@orange/core`, zod, the built-in
 * plugins), written into the bundle by tsup.config.ts when it is built.
 */
declare const __ORANGE_BUNDLED_VERSIONS__: string | undefined;

/** A package a repository installed that the CLI also carries (a config gets the CLI's copy, its tests and editor this one). */
export interface InstalledCopy {
  readonly name: string;
  readonly version: string;
  /** Where it is installed. */
  readonly path: string;
  /** The version the running CLI uses instead. */
  readonly expected: string;
  /** Same major and minor as `expected`. */
  readonly ok: boolean;
}

/** What `orange doctor` says about versions: the CLI's own, what its bundle carries, what the repository installed. */
export interface VersionReport {
  readonly cli: string;
  readonly bundled: Readonly<Record<string, string>>;
  readonly installed: readonly InstalledCopy[];
}

/** The package versions inlined into the CLI's bundle; empty when running from unbundled sources. */
export function bundledVersions(): Record<string, string> {
  return typeof __ORANGE_BUNDLED_VERSIONS__ === 'string' ? (JSON.parse(__ORANGE_BUNDLED_VERSIONS__) as Record<string, string>) : {};
}

/**
 * The copies of `@orange/core`, `@orange/*` plugins and zod that Node would resolve from `dir` (the
 * nearest `node_modules` holding each, walking up), each compared with the version the CLI uses:
 * the bundled one, else (a plugin the CLI does not carry; the packages are released together) the CLI's own.
 */
export async function versionReport(dir: string, cli: string): Promise<VersionReport> {
  const bundled = bundledVersions();
  const found = new Map<string, { version: string; path: string }>();
  for (let at = dir; ; at = dirname(at)) {
    const modules = join(at, 'node_modules');
    const scoped = await readdir(join(modules, '@orange')).catch(() => [] as string[]);
    for (const name of [...scoped.map((n) => `@orange/${n}`), 'zod']) {
      if (found.has(name)) continue;
      const path = join(modules, name);
      const manifest = await readManifest(path);
      if (manifest === null || typeof manifest.version !== 'string') continue;
      // Only what a config or a plugin imports: core, zod and the plugins (so not the CLI or the dashboard).
      if (name === '@orange/core' || name === 'zod' || (Array.isArray(manifest.keywords) && manifest.keywords.includes('orange-plugin'))) {
        found.set(name, { version: manifest.version, path });
      }
    }
    if (dirname(at) === at) break;
  }
  const installed: InstalledCopy[] = [];
  for (const [name, { version, path }] of [...found].sort(([a], [b]) => a.localeCompare(b))) {
    const expected = bundled[name] ?? (name === 'zod' ? undefined : cli);
    if (expected !== undefined) installed.push({ name, version, path, expected, ok: sameMinor(version, expected) });
  }
  return { cli, bundled, installed };
}

/** The one-line problem for a copy whose major or minor differs from the CLI's, with what to do. */
export function mismatchProblem(copy: InstalledCopy): string {
  return `${copy.name} ${copy.version} is installed at ${copy.path}, but orange uses ${copy.expected}: configs get orange's copy while your editor and tests get this one; run: npm install -D ${copy.name}@${copy.expected} (or use the orange release that matches it)`;
}

interface Manifest {
  readonly version?: unknown;
  readonly keywords?: unknown;
}

async function readManifest(dir: string): Promise<Manifest | null> {
  try {
    return JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as Manifest;
  } catch {
    return null;
  }
}

/** Same major and minor: what a caret range admits for 0.x, and where breaking changes land. */
function sameMinor(a: string, b: string): boolean {
  const [aMajor, aMinor] = a.split('.');
  const [bMajor, bMinor] = b.split('.');
  return aMajor === bMajor && aMinor === bMinor;
}
