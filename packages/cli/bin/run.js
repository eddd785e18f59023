#!/usr/bin/env node
import module from 'node:module';
import { isatty } from 'node:tty';
import { fileURLToPath } from 'node:url';

// Node 22.1+ caches what it compiles of the ES modules it loads (this file, code-cache.js, a
// TypeScript config through jiti); the bundle itself goes through Orange's own V8 code cache.
module.enableCompileCache?.();

// An agent's own call (it carries the identity Orange gave it), or a person's scripted one (no
// terminal to ask anything on), is answered by a long-running Orange's gateway when one listens:
// no bundle, config or plugins to load here at all. A person at a terminal runs the CLI.
const call = process.env.ORANGE_AGENT_SECRET || !isatty(0) ? await (await import('../dist/gateway-client.js')).callGateway(process.argv.slice(2)) : { stdin: null };
if ('exit' in call) process.exitCode = call.exit;
else {
  // Standard input read for a gateway that then left the call to the CLI: the CLI reads it here.
  if (call.stdin !== null) globalThis[Symbol.for('orange.stdin')] = call.stdin;
  await runCli();
}

async function runCli() {
  const { codeCacheDir, commandWords, loadWithCodeCache } = await import('../dist/code-cache.js');
  const bundle = fileURLToPath(new URL('../dist/main.cjs', import.meta.url));
  const cacheDir = codeCacheDir();
  // jiti keeps compiled TypeScript configs in the same private folder (core's config loader reads this).
  if (cacheDir && !process.env.ORANGE_CODE_CACHE_DIR) process.env.ORANGE_CODE_CACHE_DIR = cacheDir;
  const { exports } = loadWithCodeCache(bundle, { dir: cacheDir, words: commandWords(process.argv.slice(2)) });
  await exports.run(import.meta.url);
}
