#!/usr/bin/env node
// Gives every published package of the monorepo one version, and every reference between them
// (dependencies, devDependencies, peerDependencies) that version: the packages are released
// together, so a plugin's peer range always admits the core it was built and tested with.
// The release's notes come from CHANGELOG.md: the "## Unreleased" section becomes
// "## <version> — <date>" under a new, empty "## Unreleased". A release without notes, or one
// whose version already has an entry, is refused before anything is written.
// Usage: node scripts/set-version.mjs 0.2.0 [--date YYYY-MM-DD] [--root DIR]
//        (then: npm install --package-lock-only; see docs/releasing.md)
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const option = (name) => {
  const at = args.indexOf(name);
  if (at === -1) return undefined;
  const value = args[at + 1];
  args.splice(at, 2);
  if (value === undefined) fail(2, `${name} needs a value`);
  return value;
};
const root = resolve(option('--root') ?? join(dirname(fileURLToPath(import.meta.url)), '..'));
const date = option('--date') ?? new Date().toISOString().slice(0, 10);
const version = args[0] ?? '';
if (!/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(version) || args.length > 1) {
  fail(2, `give a version such as 0.2.0 (got ${JSON.stringify(args.join(' '))})`);
}
if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) fail(2, `--date must be YYYY-MM-DD (got ${JSON.stringify(date)})`);

const changelogFile = join(root, 'CHANGELOG.md');
const changelog = releasedChangelog(existsSync(changelogFile) ? readFileSync(changelogFile, 'utf8') : null);

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
writeFileSync(changelogFile, changelog);
console.log(`CHANGELOG.md: ## ${version} — ${date}`);

/** CHANGELOG.md with the Unreleased notes made the release's entry; exits 1 when there are none. */
function releasedChangelog(text) {
  if (text === null) fail(1, `${changelogFile} does not exist; write the release notes under "## Unreleased" there first`);
  const lines = text.split('\n');
  const heading = (line) => /^## /.test(line);
  const unreleased = lines.findIndex((line) => /^## Unreleased\s*$/i.test(line));
  if (unreleased === -1) fail(1, `CHANGELOG.md has no "## Unreleased" section; write the release notes there first`);
  const end = lines.findIndex((line, index) => index > unreleased && heading(line));
  const notes = lines.slice(unreleased + 1, end === -1 ? undefined : end).filter((line) => line.trim() !== '');
  if (notes.length === 0) fail(1, `CHANGELOG.md's "## Unreleased" section is empty; write what ${version} changes there first`);
  const escaped = version.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  if (lines.some((line) => new RegExp(`^## ${escaped}(\\s|$)`).test(line))) fail(1, `CHANGELOG.md already has an entry for ${version}; choose the next version`);
  return [...lines.slice(0, unreleased), '## Unreleased', '', `## ${version} — ${date}`, ...lines.slice(unreleased + 1)].join('\n');
}

function fail(code, message) {
  console.error(`set-version: ${message}`);
  process.exit(code);
}
