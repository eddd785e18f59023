#!/usr/bin/env node
// Runs every bench/*.bench.mjs in name order. Benchmarks print figures; they assert nothing.
import { readdirSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.mjs'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();
console.log(`orange bench — node ${process.version}, ${new Date().toISOString()}`);
// Figures are only comparable on the same machine and load: say what both were.
const cpu = cpus();
console.log(`machine: ${cpu.length} × ${cpu[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GB RAM, ${process.platform}; load average at start ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
for (const file of files) {
  console.log(`\n## ${file.replace(/\.bench\.mjs$/, '')}`);
  const mod = await import(pathToFileURL(join(here, file)).href);
  await mod.default();
}
