import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import vm from 'node:vm';

/**
 * Loads the CLI's CommonJS bundle with a V8 code cache, so a call does not parse and compile
 * 2 MB of JavaScript again (agents call orange constantly; Node 20 has no compile cache of its
 * own, and Node 22's does not cover a module it did not load itself).
 *
 * One cache file per bundle build (path, size, mtime, Node version and arch are in its name; V8
 * also refuses data from another V8 or other flags). It grows with use: a call whose command
 * words (`task show`) the cache has not seen yet rewrites it at exit with everything compiled so
 * far, which includes what the cache already held. Nothing here may fail a call: a cache that
 * cannot be read, is refused by V8, or cannot be written just means compiling as before.
 */

/** Where caches live and what this call is, decided by the caller (bin/run.cjs, tests). */
export interface CodeCacheOptions {
  /** Directory of the cache files, or null to run without a cache. */
  readonly dir: string | null;
  /** The command words of this call (`task show`); a new one rewrites the cache at exit. */
  readonly words: string;
}

/** What a load did, for tests and the bench. */
export interface CodeCacheLoad {
  readonly exports: Record<string, unknown>;
  /** The cache file used or to be written (null without a cache). */
  readonly file: string | null;
  /** accepted: V8 used the cache; rejected: V8 refused it; absent: there was none. */
  readonly cache: 'accepted' | 'rejected' | 'absent' | 'off';
}

const KEY_LIMIT = 64;

/** The cache directory from the environment: ORANGE_CODE_CACHE_DIR, else the user's cache folder; null when disabled. */
export function codeCacheDir(env: NodeJS.ProcessEnv = process.env): string | null {
  if (env.NODE_DISABLE_COMPILE_CACHE) return null;
  if (env.ORANGE_CODE_CACHE_DIR) return env.ORANGE_CODE_CACHE_DIR;
  const base = env.XDG_CACHE_HOME || (homedir() ? join(homedir(), '.cache') : '');
  return base ? join(base, 'orange') : null;
}

/** The command words of a call: its first two lower-case words before any flag (`task show`), never a task id. */
export function commandWords(argv: readonly string[]): string {
  const words: string[] = [];
  for (const arg of argv) {
    if (arg.startsWith('-') || !/^[a-z][a-z-]{0,30}$/.test(arg) || words.length === 2) break;
    words.push(arg);
  }
  return words.join(' ');
}

/** Loads `bundle` (a CommonJS file) as a module in require.cache, through the code cache when it can. */
export function loadWithCodeCache(bundle: string, options: CodeCacheOptions): CodeCacheLoad {
  const source = readFileSync(bundle, 'utf8');
  const cacheFile = options.dir ? join(options.dir, cacheName(bundle)) : null;
  const stored = cacheFile ? readCache(cacheFile) : null;
  // Node's CommonJS wrapper plus `__orangeImport`: V8 loses a cached script's import() callback,
  // so the bundle's dynamic imports (a config, a plugin) call this ES module's import() instead.
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname, __orangeImport) {${source}\n})`, {
    filename: bundle,
    cachedData: stored?.data,
  });
  const cache: CodeCacheLoad['cache'] = !cacheFile ? 'off' : !stored ? 'absent' : script.cachedDataRejected ? 'rejected' : 'accepted';

  const module = new Module(bundle);
  module.filename = bundle;
  // @ts-expect-error Module._nodeModulePaths is Node's own, undocumented in its types
  module.paths = Module._nodeModulePaths(dirname(bundle)) as string[];
  // Registered before it runs, as require() does, so `require(bundle)` (oclif's command table) gets this instance.
  // @ts-expect-error Module._cache is Node's require.cache
  (Module._cache as Record<string, Module>)[bundle] = module;
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  const importer = (specifier: string): Promise<unknown> => import(specifier);
  wrapper.call(module.exports, module.exports, createRequire(bundle), module, bundle, dirname(bundle), importer);
  module.loaded = true;

  const keys = stored && cache === 'accepted' ? stored.keys : [];
  if (cacheFile && !keys.includes(options.words) && keys.length < KEY_LIMIT) {
    process.once('exit', () => writeCache(cacheFile, [...keys, options.words], script));
  }
  return { exports: module.exports as Record<string, unknown>, file: cacheFile, cache };
}

/** One name per build of the bundle (another build, Node or machine never reads it). */
function cacheName(bundle: string): string {
  const stat = statSync(bundle);
  return `${buildPrefix(bundle)}${process.version}-${process.arch}-${stat.size}-${Math.trunc(stat.mtimeMs)}.v8`;
}

/** Caches of the same installed bundle start alike, so a rebuild can remove its predecessors' files. */
function buildPrefix(bundle: string): string {
  // FNV-1a of the path: short and stable, without loading node:crypto for it.
  let hash = 0x811c9dc5;
  for (let i = 0; i < bundle.length; i++) hash = Math.imul(hash ^ bundle.charCodeAt(i), 0x01000193) >>> 0;
  return `cli-${hash.toString(16).padStart(8, '0')}-`;
}

/** File layout: 4-byte length, the JSON list of command words covered, then V8's data. */
function readCache(file: string): { keys: string[]; data: Buffer } | null {
  try {
    const raw = readFileSync(file);
    const length = raw.readUInt32LE(0);
    const keys = JSON.parse(raw.subarray(4, 4 + length).toString('utf8')) as unknown;
    if (!Array.isArray(keys) || !keys.every((k) => typeof k === 'string')) return null;
    return { keys, data: raw.subarray(4 + length) };
  } catch {
    return null;
  }
}

function writeCache(file: string, keys: readonly string[], script: vm.Script): void {
  try {
    const dir = dirname(file);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const header = Buffer.from(JSON.stringify(keys), 'utf8');
    const length = Buffer.alloc(4);
    length.writeUInt32LE(header.length, 0);
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, Buffer.concat([length, header, script.createCachedData()]), { mode: 0o600 });
    renameSync(temp, file);
    removeOtherBuilds(dir, file);
  } catch {
    // A read-only or full disk costs the next call its compile time, nothing more.
  }
}

/**
 * Removes caches of earlier builds of the same bundle (same path prefix, other name), and temp
 * files a killed call left over a minute ago.
 */
function removeOtherBuilds(dir: string, current: string): void {
  const name = current.slice(dir.length + 1);
  const prefix = name.slice(0, name.indexOf('-', 4) + 1);
  for (const entry of readdirSync(dir)) {
    if (!entry.startsWith(prefix) || entry === name) continue;
    const path = join(dir, entry);
    if (entry.endsWith('.tmp') && Date.now() - statSync(path).mtimeMs < 60_000) continue;
    rmSync(path, { force: true });
  }
}
