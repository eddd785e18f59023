#!/usr/bin/env node
// Gives every published package of the monorepo one version, and every reference between them
// (dependencies, devDependencies, peerDependencies) that version: the packages are released
// together, so a plugin's peer range always admits the core it was built and tested with.
// Usage: node scripts/set-version.mjs 0.2.0   (then: npm install --package-lock-only; see docs/releasing.md)
import { readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const version = process.argv[2] ?? '';
if (!/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(version)) {
  console.error(`set-version: give a version such as 0.2.0 (got ${JSON.stringify(version)})`);
  process.exit(2);
}
const { workspaces } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const files = workspaces
  .flatMap((pattern) => readdirSync(join(root, pattern.replace(/\/\*$/, ''))).map((name) => join(root, pattern.replace(/\/\*$/, ''), name, 'package.json')))
  .filter((file) => existsSync(file));
const manifests = files.map((file) => ({ file, json: JSON.parse(readFileSync(file, 'utf8')) }));
const internal = new Set(manifests.map((m) => m.json.name));
for (const { file, json } of manifests) {
  json.version = version;
  for (const field of ['dependencies', 'devDependencies']) {
    for (const name of Object.keys(json[field] ?? {})) if (internal.has(name)) json[field][name] = version;
  }
  // A peer range, not a pin: a patch release of core must not make npm refuse a plugin.
  for (const name of Object.keys(json.peerDependencies ?? {})) if (internal.has(name)) json.peerDependencies[name] = `^${version}`;
  writeFileSync(file, `${JSON.stringify(json, null, 2)}\n`);
  console.log(`${json.name}@${version}${json.private ? ' (private, not published)' : ''}`);
}
