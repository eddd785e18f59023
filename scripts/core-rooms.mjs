#!/usr/bin/env node
// The shape of @orange/core, checked: every import between its source files (type imports
// included) read from the code, grouped by room (the folder under src/). It fails when two files
// import each other in a circle, when a room imports a room above it in ROOMS, when a file is over
// the size limit, or when a room's outside is reached other than through its index.ts.
//   node scripts/core-rooms.mjs            check (CI runs it through `npm run lint`)
//   node scripts/core-rooms.mjs --mermaid  print the rooms and their arrows as a Mermaid graph
//   node scripts/core-rooms.mjs --write    put that graph into docs/architecture.md
// Node builtins only.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'packages/core/src');

/**
 * The rooms, lowest first: a room may import only rooms listed before it (and itself). `.` is
 * the composition root (orange.ts) and the public face (index.ts), above every room.
 */
export const ROOMS = ['errors', 'text', 'process', 'gateway', 'log', 'task', 'workflow', 'store', 'authority', 'config', 'plugin', 'notifications', 'engine', 'monitor', 'root', 'simulation', 'public'];

/** What each room is for, as the architecture page says it. */
const PURPOSE = {
  errors: 'OrangeError and its codes',
  text: 'terminal-safe text, times, JSON error places',
  process: 'the process table, stopping processes, signals, executables, the origin of a call',
  gateway: "the gateway's wire format and its client (Node builtins only)",
  log: 'the JSON-lines logger',
  task: 'TASK.md fields and sections',
  workflow: 'definitions, validation, guards, gates, exit rules, the built-in workflows',
  store: 'TASK.md, state, ledger, index, projects, paths, locks, the queue',
  authority: 'who a call comes from: a person, or which task\'s agent',
  config: 'the config schema, loaders, error places',
  plugin: 'the plugin API: the Orange and Engine a plugin sees, slots, the hook bus, core actions',
  notifications: 'raising, routing, the outbox and its delivery',
  engine: 'the move, creation, exits, edits, what a person does to a task',
  monitor: 'the backstop pass, its lease, pull request reading',
  root: 'the one composition root',
  simulation: 'workflow simulate: the engine on memory stores',
  public: 'index.ts: the public API',
};

const MAX_LINES = 400;

function sourceFiles(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (name.endsWith('.ts') && !name.endsWith('.test.ts') && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** The room of a file: its first folder under src/, or `root` / `public` for the two top files. */
function roomOf(file) {
  const rel = relative(src, file);
  if (!rel.includes(sep)) return rel === 'index.ts' ? 'public' : 'root';
  return rel.split(sep)[0];
}

/** Every relative import of a file (`import`, `import type`, `export … from`, `import()`), resolved to a file. */
function importsOf(file) {
  const text = readFileSync(file, 'utf8');
  const specs = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+'(\.[^']+)'/g), ...text.matchAll(/import\(\s*'(\.[^']+)'\s*\)/g)].map((m) => m[1]);
  return [...new Set(specs)].map((spec) => resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
}

export function readGraph() {
  const files = sourceFiles(src).sort();
  const edges = new Map(files.map((f) => [f, importsOf(f)]));
  return { files, edges };
}

/** Strongly connected components with more than one file, or a file importing itself (Tarjan). */
function circles(files, edges) {
  let index = 0;
  const stack = [];
  const state = new Map();
  const found = [];
  const visit = (v) => {
    state.set(v, { index, low: index, onStack: true });
    index++;
    stack.push(v);
    for (const w of edges.get(v) ?? []) {
      if (!edges.has(w)) continue;
      if (!state.has(w)) {
        visit(w);
        state.get(v).low = Math.min(state.get(v).low, state.get(w).low);
      } else if (state.get(w).onStack) state.get(v).low = Math.min(state.get(v).low, state.get(w).index);
    }
    if (state.get(v).low === state.get(v).index) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        state.get(w).onStack = false;
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (edges.get(v) ?? []).includes(v)) found.push(component);
    }
  };
  for (const f of files) if (!state.has(f)) visit(f);
  return found;
}

export function check() {
  const { files, edges } = readGraph();
  const problems = [];
  const rel = (f) => relative(src, f);
  for (const component of circles(files, edges)) problems.push(`import circle: ${component.map(rel).sort().join(' → ')}`);
  for (const [file, targets] of edges) {
    const from = roomOf(file);
    if (!ROOMS.includes(from)) problems.push(`${rel(file)}: room "${from}" is not listed in scripts/core-rooms.mjs ROOMS`);
    for (const target of targets) {
      if (!edges.has(target)) {
        problems.push(`${rel(file)} imports ${rel(target)}, which is not a source file`);
        continue;
      }
      const to = roomOf(target);
      if (from === to) continue;
      if (ROOMS.indexOf(to) > ROOMS.indexOf(from)) problems.push(`${rel(file)} (${from}) imports ${rel(target)} (${to}), a room above it`);
      // Another room is entered through its door: its index.ts (the root and the public face take any file).
      if (!['root', 'public'].includes(to) && !target.endsWith(`${sep}index.ts`)) problems.push(`${rel(file)} imports ${rel(target)}: go through ${to}/index.ts`);
    }
  }
  for (const file of files) {
    const lines = readFileSync(file, 'utf8').split('\n').length;
    if (lines > MAX_LINES) problems.push(`${rel(file)} has ${lines} lines (at most ${MAX_LINES})`);
  }
  return problems;
}

/** The rooms and the arrows between them (a room → a room it imports), as a Mermaid flowchart. */
export function mermaid() {
  const { edges } = readGraph();
  const arrows = new Set();
  for (const [file, targets] of edges) {
    for (const target of targets) {
      const from = roomOf(file);
      const to = roomOf(target);
      if (from !== to && from !== 'public') arrows.add(`${from} --> ${to}`);
    }
  }
  const present = ROOMS.filter((r) => r !== 'public' && [...edges.keys()].some((f) => roomOf(f) === r));
  const label = (r) => (r === 'root' ? 'orange.ts' : `${r}/`);
  return [
    'flowchart BT',
    ...present.map((r) => `  ${r}["${label(r)}<br/><small>${PURPOSE[r]}</small>"]`),
    ...[...arrows].sort().map((a) => `  ${a}`),
  ].join('\n');
}

const BEGIN = '<!-- core-rooms:begin (generated by node scripts/core-rooms.mjs --write) -->';
const END = '<!-- core-rooms:end -->';

function architectureWithGraph(text) {
  const block = `${BEGIN}\n\`\`\`mermaid\n${mermaid()}\n\`\`\`\n${END}`;
  const start = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  if (start < 0 || end < 0) throw new Error(`docs/architecture.md has no ${BEGIN} … ${END} block`);
  return text.slice(0, start) + block + text.slice(end + END.length);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const doc = join(root, 'docs/architecture.md');
  if (process.argv.includes('--mermaid')) {
    console.log(mermaid());
  } else if (process.argv.includes('--write')) {
    writeFileSync(doc, architectureWithGraph(readFileSync(doc, 'utf8')));
    console.log('docs/architecture.md: the rooms graph is up to date');
  } else {
    const problems = check();
    const text = readFileSync(doc, 'utf8');
    if (text.includes(BEGIN) && architectureWithGraph(text) !== text) problems.push('docs/architecture.md: the rooms graph is out of date; run node scripts/core-rooms.mjs --write');
    if (problems.length > 0) {
      for (const p of problems) console.error(`core-rooms: ${p}`);
      process.exit(1);
    }
    console.log(`core-rooms: ${readGraph().files.length} files in ${ROOMS.length} rooms, no circle, no arrow up, none over ${MAX_LINES} lines`);
  }
}
