#!/usr/bin/env node
import module from 'node:module';
import { fileURLToPath } from 'node:url';
import { codeCacheDir, commandWords, loadWithCodeCache } from '../dist/code-cache.js';

// Node 22.1+ caches what it compiles of the ES modules it loads (this file, code-cache.js, a
// TypeScript config through jiti); the bundle itself goes through Orange's own V8 code cache.
module.enableCompileCache?.();

const bundle = fileURLToPath(new URL('../dist/main.cjs', import.meta.url));
const cacheDir = codeCacheDir();
// jiti keeps compiled TypeScript configs in the same private folder (core's config loader reads this).
if (cacheDir && !process.env.ORANGE_CODE_CACHE_DIR) process.env.ORANGE_CODE_CACHE_DIR = cacheDir;
const { exports } = loadWithCodeCache(bundle, { dir: cacheDir, words: commandWords(process.argv.slice(2)) });
await exports.run(import.meta.url);
