import { readFile } from 'node:fs/promises';
import { createRequire, SourceMap } from 'node:module';
import { basename, dirname, isAbsolute, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isOrangeError, OrangeError } from '../errors/index.js';
import { jsonErrorOffset } from '../text/index.js';

/**
 * jiti through require(), not import(): importing its ES entry makes Node scan jiti's 190 KB
 * CommonJS build for export names first (cjs-module-lexer), about 35 ms of every call with a
 * TypeScript config.
 */
function loadJiti(): typeof import('jiti') {
  return createRequire(import.meta.url)('jiti') as typeof import('jiti');
}

/**
 * The cosmiconfig loaders of each config format. Each one turns its own failure into one
 * E_CONFIG line that says where: `file:line:column: reason` for what a parser or a stack frame
 * can place, `file: reason` for the rest. cosmiconfig's own loaders put the reason on a second
 * line ("YAML Error in <file>:\n…") and JSON.parse often gives no position at all.
 */

/** `package.json`, `.orangerc.json`. */
export function loadJsonConfig(file: string, content: string): unknown {
  try {
    return JSON.parse(content) as unknown;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const stated = /at position (\d+)/.exec(message);
    const offset = stated ? Number(stated[1]) : (jsonErrorOffset(content) ?? content.length);
    // V8 appends a copy of the text ('…, "[1,]" is not valid JSON') or a position; the place is
    // given once, in front.
    const reason = message.replace(/, (?:\.\.\.)?".*" is not valid JSON$/s, '').replace(/ in JSON at position \d+.*$/s, '');
    throw locatedError(file, lineAndColumn(content, offset), reason);
  }
}

/** `.orangerc`, `.orangerc.yaml`, `.orangerc.yml`. */
export async function loadYamlConfig(file: string, content: string): Promise<unknown> {
  const yaml = await import('js-yaml');
  try {
    return yaml.load(content, { filename: file });
  } catch (error) {
    if (error instanceof yaml.YAMLException) {
      // js-yaml counts from 0.
      throw locatedError(file, { line: error.mark.line + 1, column: error.mark.column + 1 }, error.reason);
    }
    throw error;
  }
}

/**
 * Module specifiers a config gets from the code that loads it instead of resolving them itself:
 * `@orange/core`, the plugin packages and `zod` of the running CLI, so that `instanceof`, hooks
 * and schemas are the CLI's own (see docs/configuration.md, "Imports a config shares with the CLI").
 * An entry may be a getter: it is read only when a module imports that specifier.
 */
export type SharedModules = Readonly<Record<string, object>>;

/**
 * `.ts`, `.mts`, `.js` and `.mjs` through jiti with its file cache (compiling with `typescript`
 * on every call costs ~0.6 s). Every module the config pulls in, local or from node_modules, goes
 * through jiti too (no native loading), so each of its imports of a shared specifier is answered
 * with the shared module, not with a second copy found on disk, or an error where none is installed.
 */
export async function loadModuleConfig(file: string, modules: SharedModules = {}): Promise<unknown> {
  const { createJiti } = loadJiti();
  // The table itself, not a copy: a copy would read every entry, and a program may make some load on first use (getters).
  const jiti = createJiti(import.meta.url, { fsCache: jitiCacheDir(), moduleCache: false, interopDefault: true, virtualModules: modules as Record<string, unknown> });
  try {
    return await jiti.import<unknown>(file, { default: true });
  } catch (error) {
    // jiti compiles JavaScript as well, so a stack frame in any config maps back the same way.
    throw await moduleLoadError(file, error, true);
  }
}

/**
 * Where jiti keeps compiled configs: beside the CLI's own code cache (`ORANGE_CODE_CACHE_DIR`,
 * which bin/run.cjs sets), in the user's private cache folder. jiti's default is a shared
 * `$TMPDIR/jiti`, where another user could leave compiled code for the next call to run, and
 * which outlives a sandbox that points TMPDIR at itself.
 */
function jitiCacheDir(): string | true {
  const dir = process.env.ORANGE_CODE_CACHE_DIR;
  return dir ? join(dir, 'jiti') : true;
}

interface Place {
  readonly line: number;
  /** Absent when only the line is known. */
  readonly column?: number;
}

function locatedError(file: string, place: Place | null, reason: string): OrangeError {
  const where = place ? `${file}:${place.line}${place.column === undefined ? '' : `:${place.column}`}` : file;
  return new OrangeError('E_CONFIG', `${where}: ${oneLine(reason)}`, { file, ...place });
}

/** Why importing a JS or TS config failed, located in the config file where the error allows. */
async function moduleLoadError(file: string, error: unknown, typescript: boolean): Promise<OrangeError> {
  if (!(error instanceof Error)) return locatedError(file, null, String(error));
  // An OrangeError raised while the config runs (a plugin factory's E_PLUGIN_OPTIONS) keeps its
  // code: it is the more precise answer, the config file is only where it happened.
  if (isOrangeError(error)) {
    const place = await framePlace(file, error, typescript);
    const where = place ? `${file}:${place.line}${place.column === undefined ? '' : `:${place.column}`}` : file;
    return new OrangeError(error.code, `${where}: ${error.message}`, { ...error.details, file });
  }
  // jiti reports a syntax error as "ParseError: <reason> \n <file>:<line>:<column from 0>".
  const parse = /^(\w*Error): (.*?)\s*\n\s*(\S.*):(\d+):(\d+)\s*$/s.exec(error.message);
  if (parse) {
    const [, , reason = '', at = file, line = '0', column = '0'] = parse;
    const place = { line: Number(line), column: Number(column) + 1 };
    const located = locatedError(at, place, await withToken(at, place, reason));
    return at === file ? located : locatedError(file, null, located.message);
  }
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND') return await missingModuleError(file, error);
  if (error instanceof SyntaxError && !typescript) {
    // Node's ESM SyntaxError carries no file or line at all; jiti's parser can place it.
    const place = await javaScriptSyntaxPlace(file);
    return locatedError(file, place, place ? error.message : `SyntaxError: ${error.message} (in this file or a module it imports)`);
  }
  const reason = error.name && error.name !== 'Error' ? `${error.name}: ${error.message}` : error.message;
  // Thrown by a local file the config imports (plugins/veto.ts at load): say where in it.
  const local = await localFramePlace(file, error);
  if (local && local.file !== file) return locatedError(file, null, `${reason} (thrown at ${placeText(file, local)})`);
  return locatedError(file, await framePlace(file, error, typescript), reason);
}

/**
 * Where in the config or a local file it imports `error` was thrown, as written and relative to
 * the config's directory (`plugins/veto.ts:12:5`); null when no frame of the stack is in one.
 * For errors raised after loading, such as a throw in a plugin's `apply`.
 */
export async function configThrowPlace(configFile: string, error: unknown): Promise<string | null> {
  if (!(error instanceof Error)) return null;
  const local = await localFramePlace(configFile, error);
  return local ? placeText(configFile, local) : null;
}

function placeText(configFile: string, place: Place & { file: string }): string {
  return `${relativeTo(configFile, place.file)}:${place.line}${place.column === undefined ? '' : `:${place.column}`}`;
}

/**
 * A module that could not be found, named with the file, line and column of the import that asked
 * for it and what to do: `Cannot find module 'x' imported from plugins/veto.ts:3:19 — …`.
 */
async function missingModuleError(file: string, error: Error): Promise<OrangeError> {
  const reason = firstLine(error.message);
  const specifier = /Cannot find (?:module|package) '([^']+)'/.exec(reason)?.[1];
  // jiti keeps the importer in requireStack; Node's ESM message says "imported from <file>".
  const importer = (error as { requireStack?: string[] }).requireStack?.[0] ?? / imported from (\/\S+)$/.exec(reason)?.[1] ?? file;
  if (specifier === undefined) return locatedError(file, null, reason);
  const place = await importPlace(importer, specifier);
  const at = `${relativeTo(file, importer)}${place ? `:${place.line}:${place.column}` : ''}`;
  const hint =
    specifier.startsWith('.') || specifier.startsWith('/')
      ? 'check the path (a TypeScript file is imported by its name, with .js or without an extension)'
      : `install it in this repository (npm install ${packageName(specifier)})`;
  return new OrangeError('E_CONFIG', `${file}: Cannot find module '${specifier}' imported from ${at} — ${hint}`, { file, importer, specifier, ...place });
}

/** Where `specifier` is imported in `file` (the quoted specifier of its import or require); null when not found. */
async function importPlace(file: string, specifier: string): Promise<Place | null> {
  const text = await readFile(file, 'utf8').catch(() => null);
  if (text === null) return null;
  for (const [index, line] of text.split('\n').entries()) {
    if (!/\b(?:from|import|require)\b/.test(line)) continue;
    for (const quote of ["'", '"', '`']) {
      const column = line.indexOf(`${quote}${specifier}${quote}`);
      if (column !== -1) return { line: index + 1, column: column + 1 };
    }
  }
  return null;
}

/** `importer` as seen from the config's directory (`plugins/veto.ts`), or absolute when it is elsewhere. */
function relativeTo(configFile: string, importer: string): string {
  if (importer === configFile) return basename(importer);
  const path = relative(dirname(configFile), importer);
  return path.startsWith('..') || isAbsolute(path) ? importer : path;
}

/** The package of a bare specifier: `@scope/name/sub` → `@scope/name`, `name/sub` → `name`. */
function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
}

/** The line and column of the innermost stack frame in `file`, in the file as written. */
async function framePlace(file: string, error: Error, typescript: boolean): Promise<Place | null> {
  for (const frame of (error.stack ?? '').split('\n').slice(1)) {
    const match = /(?:\(|at (?:async )?)((?:file:\/\/)?\/[^()]*?):(\d+):(\d+)\)?\s*$/.exec(frame);
    if (!match) continue;
    const [, location = '', line = '0', column = '0'] = match;
    const path = location.startsWith('file://') ? fileURLToPath(location) : location;
    if (path !== file) continue;
    const place = { line: Number(line), column: Number(column) };
    return typescript ? await typeScriptPlace(file, place) : place;
  }
  return null;
}

/** The innermost stack frame in a file of the config's own directory tree (not node_modules), mapped back as written. */
async function localFramePlace(file: string, error: Error): Promise<(Place & { file: string }) | null> {
  const root = `${dirname(file)}/`;
  for (const frame of (error.stack ?? '').split('\n').slice(1)) {
    const match = /(?:\(|at (?:async )?)((?:file:\/\/)?\/[^()]*?):(\d+):(\d+)\)?\s*$/.exec(frame);
    if (!match) continue;
    const [, location = '', line = '0', column = '0'] = match;
    const path = location.startsWith('file://') ? fileURLToPath(location) : location;
    if (!path.startsWith(root) || path.includes('/node_modules/')) continue;
    return { file: path, ...(await typeScriptPlace(path, { line: Number(line), column: Number(column) })) };
  }
  return null;
}

/**
 * A frame in a TypeScript config points into jiti's compiled code: the lines are kept, the
 * columns move where types were removed. Compiling once more with a source map (only on this
 * error path) maps the column back; if that fails, only the line is given.
 */
async function typeScriptPlace(file: string, place: Place): Promise<Place> {
  try {
    const { createJiti } = loadJiti();
    const jiti = createJiti(import.meta.url, { sourceMaps: true, fsCache: false, moduleCache: false, interopDefault: true });
    const code = jiti.transform({ source: await readFile(file, 'utf8'), filename: file, ts: true });
    const map = /sourceMappingURL=data:application\/json;(?:charset=utf-8;)?base64,([A-Za-z0-9+/=]+)/.exec(code)?.[1];
    if (!map) return { line: place.line };
    // jiti runs the compiled code inside a function whose head is on the first line.
    const column = (place.column ?? 1) - (place.line === 1 ? JITI_WRAPPER_HEAD.length : 0);
    const entry = new SourceMap(JSON.parse(Buffer.from(map, 'base64').toString('utf8')) as ConstructorParameters<typeof SourceMap>[0]).findEntry(
      place.line - 1,
      column - 1,
    ) as { originalLine?: number; originalColumn?: number };
    if (entry.originalLine !== place.line - 1 || entry.originalColumn === undefined) return { line: place.line };
    return { line: place.line, column: entry.originalColumn + 1 };
  } catch {
    return { line: place.line };
  }
}

/** What jiti puts in front of a module's compiled code (jiti.import evaluates modules as async functions). */
const JITI_WRAPPER_HEAD = '(async function (exports, require, module, __filename, __dirname, jitiImport, jitiESMResolve) { ';

/** Where jiti's parser finds the syntax error of a JavaScript file; null when it finds none. */
async function javaScriptSyntaxPlace(file: string): Promise<Place | null> {
  try {
    const { createJiti } = loadJiti();
    const jiti = createJiti(import.meta.url, { fsCache: false, moduleCache: false });
    const code = jiti.transform({ source: await readFile(file, 'utf8'), filename: file });
    // jiti does not throw on a parse error: it returns code that would throw this object.
    const failure = /__JITI_ERROR__\s*=\s*(\{.*\})/s.exec(code)?.[1];
    if (!failure) return null;
    const { line, column } = JSON.parse(failure) as { line?: number; column?: number };
    return typeof line === 'number' && typeof column === 'number' ? { line, column: column + 1 } : null;
  } catch {
    return null;
  }
}

/** Babel says only "Unexpected token"; the character at the place says which. */
async function withToken(file: string, place: Place, reason: string): Promise<string> {
  if (reason !== 'Unexpected token' || place.column === undefined) return reason;
  const text = await readFile(file, 'utf8').catch(() => '');
  const char = text.split('\n')[place.line - 1]?.[place.column - 1];
  return char && char.trim() !== '' ? `${reason} ${JSON.stringify(char)}` : reason;
}

function lineAndColumn(text: string, offset: number): Place {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n') };
}

function firstLine(message: string): string {
  return message.split('\n')[0]?.trim() ?? '';
}

/** A reason may quote a newline from the file ("Unexpected token '\n'"); it stays one line. */
function oneLine(reason: string): string {
  // eslint-disable-next-line no-control-regex
  return reason.trim().replace(/[\u0000-\u001f]/g, (c) => JSON.stringify(c).slice(1, -1));
}
