#!/usr/bin/env node
// Every published package's "prepack": npm runs it in the package's directory before `npm pack`
// and `npm publish`, so a tarball never ships a stale or missing dist. It builds the package and
// what it depends on through turbo (a cache hit when nothing changed), then checks that every
// file package.json points at (exports, main, types, bin) is there; any failure stops the pack.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { entryFiles } from './entry-files.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dir = process.cwd();
const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
const where = relative(root, dir) || '.';

// Output to stderr: `npm pack --json` prints its JSON on stdout.
const turbo = join(root, 'node_modules', '.bin', 'turbo');
const build = spawnSync(turbo, ['run', 'build', `--filter=${manifest.name}`, '--output-logs=errors-only'], { cwd: root, stdio: ['ignore', 2, 2] });
if (build.status !== 0) {
  console.error(`prepack: building ${manifest.name} (${where}) failed${build.error ? `: ${build.error.message}` : ''}; nothing was packed`);
  process.exit(1);
}

const missing = entryFiles(manifest).filter((file) => !existsSync(join(dir, file)));
if (missing.length > 0) {
  console.error(`prepack: ${manifest.name} (${where}) names files its build did not make: ${missing.join(', ')}; nothing was packed`);
  process.exit(1);
}
