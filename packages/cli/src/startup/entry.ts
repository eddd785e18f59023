import module from 'node:module';
import { dirname, join } from 'node:path';
import { isatty } from 'node:tty';
import { pathToFileURL } from 'node:url';
import { BUFFERED_STDIN, callGateway } from '@orange/core/gateway';
import { codeCacheDir, commandWords, loadWithCodeCache } from './code-cache.js';

/**
 * What `bin/run.cjs` runs. A small CommonJS file, not an ES module: agents call `orange`
 * constantly and, with a long-running Orange, this is all such a call loads (Node's ES module
 * loader alone costs ~6 ms of CPU per call).
 *
 * An agent's own call (it carries the identity Orange gave it), or a person's scripted one (no
 * terminal to ask anything on), is answered by a long-running Orange's gateway when one listens:
 * no bundle, config or plugins to load here at all. A person at a terminal runs the CLI.
 */
export async function main(entry: string): Promise<void> {
  // Node 22.1+ caches what it compiles of the modules it loads itself (a TypeScript config through
  // jiti); the bundle goes through Orange's own V8 code cache.
  (module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
  const argv = process.argv.slice(2);
  const call = process.env.ORANGE_AGENT_SECRET || !isatty(0) ? await callGateway(argv) : { stdin: null };
  if ('exit' in call) {
    process.exitCode = call.exit;
    return;
  }
  // Standard input read for a gateway that then left the call to the CLI: the CLI reads it here.
  if (call.stdin !== null) (globalThis as Record<symbol, unknown>)[BUFFERED_STDIN] = call.stdin;
  const cacheDir = codeCacheDir();
  // jiti keeps compiled TypeScript configs in the same private folder (core's config loader reads this).
  if (cacheDir && !process.env.ORANGE_CODE_CACHE_DIR) process.env.ORANGE_CODE_CACHE_DIR = cacheDir;
  const bundle = join(dirname(entry), '..', 'dist', 'main.cjs');
  const { exports } = loadWithCodeCache(bundle, { dir: cacheDir, words: commandWords(argv) });
  await (exports.run as (entry: string) => Promise<void>)(pathToFileURL(entry).href);
}
