#!/usr/bin/env node
// Runs every bench/*.bench.mjs in name order. Benchmarks print figures; they assert nothing.
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.mjs'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();
console.log(`orange bench — node ${process.version}, ${new Date().toISOString()}`);
for (const file of files) {
  console.log(`\n## ${file.replace(/\.bench\.mjs$/, '')}`);
  const mod = await import(pathToFileURL(join(here, file)).href);
  await mod.default();
}
