/**
 * The docs' examples, run. Every fenced block of README.md and docs/**\/*.md is read
 * (doc-blocks.ts) and, by its language:
 *
 * - `sh`, `bash`, `shell`, `console`: each `orange …` command is run, in order, against the built
 *   CLI in a sandbox (its own ORANGE_HOME and tmux server, project `demo` registered, an agent
 *   harness that only sleeps). A command must exit 0; exit 1 passes only for a command that asks
 *   for confirmation (there is no terminal here) or in a block marked may-refuse; exit 2 (bad
 *   usage: an unknown command or flag) and an unexpected error always fail. Placeholders are
 *   replaced as SUBSTITUTIONS (below) says. Run too: `cat FILE |`, `printf … |`, `echo … |` or
 *   `< FILE` in front (emulated, with the sample files below), `| less` (or head, jq, …) and
 *   `> FILE` behind (dropped: the output is read here, not written), and `cd DIR` to a directory of
 *   the sandbox. Not run: other programs (npm, git, tmux, node, …), and
 *   the commands of NOT_RUN (a terminal, a process that runs until stopped, GitHub), whose
 *   command and flags are checked against the oclif manifest instead.
 * - `ts`, `js`, `mjs`: a block with `export default` (or a first line `// orange.config.ts`) is a
 *   config: written as orange.config.ts with the modules it imports from `./…` (a block of the
 *   same page that says it is that file or exports those names, else the file under examples/),
 *   and loaded with `orange doctor --json`, which must load it and find no problem but the
 *   machine's (MACHINE_PROBLEMS). Other blocks are fragments or modules, loaded only through a
 *   config that imports them.
 * - Anything else (output, synopses, json, diagrams) is not run.
 *
 * A block is marked on the line before its fence: `<!-- docs-test: skip (reason) -->` (never run;
 * for what cannot run here) or `<!-- docs-test: may-refuse -->`. Each page prints what ran and what
 * did not, and why; a failure names the page, line, command, exit code and output.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { makeOrigin, repoRoot as root } from '@orange/test-support';
import { execa } from 'execa';
import { afterAll, describe, it } from 'vitest';
import {
  commandOf,
  fencedBlocks,
  flagsUsed,
  isSampleId,
  MODULE_LANGS,
  moduleInfo,
  planCommand,
  producedInput,
  SHELL_LANGS,
  shellCommands,
  type FencedBlock,
  type ShellCommand,
} from './doc-blocks.js';
import { CLI, Sandbox } from './sandbox.js';


interface ManifestFlag {
  readonly type?: 'boolean' | 'option';
  readonly char?: string;
  readonly allowNo?: boolean;
  readonly hidden?: boolean;
}
const manifest = JSON.parse(readFileSync(join(root, 'packages/cli/oclif.manifest.json'), 'utf8')) as {
  commands: Record<string, { flags: Record<string, ManifestFlag> }>;
};
const commandIds = new Set(Object.keys(manifest.commands));

/** README.md and every page under docs/, read when the test runs: a page added later is tested too. */
function docPages(): string[] {
  const pages: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) pages.push(path);
    }
  };
  walk('docs');
  return ['README.md', ...pages.sort()];
}

// ---------------------------------------------------------------------------------------------
// What is not run, and what replaces the docs' placeholders
// ---------------------------------------------------------------------------------------------

/**
 * Commands never run here, in any block: each needs what a test does not have, or runs until
 * stopped. Their command and flags are checked against the manifest instead.
 */
const NOT_RUN: ReadonlyArray<{ readonly id: string; readonly when?: (rest: readonly string[]) => boolean; readonly why: string }> = [
  { id: 'dash', why: 'needs a terminal' }, // also `orange dashboard` and a plain `orange [dash flags]`
  { id: 'task:attach', why: 'needs a terminal' },
  { id: 'monitor', when: (rest) => !rest.includes('--once'), why: 'runs until stopped' },
  { id: 'web', why: 'runs until stopped' },
  { id: 'task:output', when: (rest) => rest.includes('--follow') || rest.includes('-f'), why: 'runs until the agent exits' },
  { id: 'demo', why: 'a whole demo run (demo.test.ts runs it)' },
  { id: 'task:create', when: (rest) => rest.includes('--issue'), why: 'needs GitHub (gh)' },
  { id: 'task:create-pr', why: 'needs GitHub (gh)' },
];

/**
 * SUBSTITUTIONS — what the docs' placeholders become. A sample task id is a task of the status
 * FIXTURE_FOR gives its command. A command that moves its task gets one of its own: the lines of a
 * block are alternatives (`merge ID`, `merge ID --local`). The others (show, output, log, …) share
 * the page's task, and so does a block that works on one task without naming it: it runs inside
 * that task's worktree (`task section set Plan …`, then `… Handoff -`). A `<…>` placeholder not
 * listed here fails the test, so that it gets a row.
 *
 * V1StGXR8Z5jdHi6BmyT4a, ID, <id>   a task of the sandbox's project demo (FIXTURE_FOR)
 *                                    (for orange memory: the task of memory entry 3)
 * ~/src/app                          a clone of its own (branches main and develop), registered
 *                                    as project app unless the block adds it itself
 * ~/…                                the sandbox's HOME
 * spec.md, review.md                 sample files (cat and --file)
 * ORANGE_HOME=…                      another fresh ORANGE_HOME in the sandbox
 * feature/x, fix/y, app, 3, …        as written (the sandbox has project app and workflow minimal)
 */

type FixtureKind = 'shared' | 'pending' | 'planning' | 'unstarted' | 'reviewing' | 'cancelled' | 'stopped' | 'memory';

/**
 * The task a command naming a sample id gets; otherwise a `planning` one of its own (a worktree
 * and a live, idle agent). shared: the page's planning task, for commands that leave its status
 * alone (or whose block may refuse); unstarted: created in clarification with --no-spawn (no
 * agent to be alive); reviewing: its branch has a commit; stopped: a pipeline task, cancelled
 * (the sandbox's agent cannot run headless, so it never gets further); memory: no task, the one
 * memory entry 3 names.
 */
const FIXTURE_FOR: Readonly<Record<string, FixtureKind>> = {
  'task:show': 'shared',
  'task:output': 'shared',
  'task:section:set': 'shared',
  'task:update': 'shared',
  'task:repair': 'shared',
  log: 'shared',
  'task:spawn': 'pending',
  'task:respawn': 'unstarted',
  'task:delete': 'cancelled',
  'task:merge': 'reviewing',
  'task:move': 'reviewing',
  'task:request-changes': 'reviewing',
  'task:resume': 'stopped',
  'task:clarify': 'stopped',
  'memory:show': 'memory',
  'memory:forget': 'memory',
};

/** The memory entries of project demo's checkout (`.orange/memory/`): `memory show 3` and `memory forget 3` find the third. */
const MEMORY_TASKS = ['memoryEntryTask000001', 'memoryEntryTask000002', 'memoryEntryTask000003'];

/** Commands that find their task from the directory when no id is given: a block using one runs in a task's worktree. */
const FINDS_ITS_TASK = new Set(['task:show', 'task:update', 'task:complete', 'task:stuck', 'task:output', 'task:section:set']);

/** The sample files `cat spec.md` and `--file spec.md` read. */
const SAMPLE_FILES: Readonly<Record<string, string>> = {
  'spec.md': 'Parse ISO dates with an offset; keep the old format working.\n',
  'review.md': 'Rename the flag to --dry-run and add a test for it.\n',
};

function sampleFile(name: string): string {
  const text = SAMPLE_FILES[name];
  if (text === undefined) throw new Error(`the docs read ${name}, which is not among the sample files (SAMPLE_FILES in docs.test.ts)`);
  return text;
}

/** The environment a config of the docs reads. */
const CONFIG_ENV: Readonly<Record<string, string>> = {
  SLACK_WEBHOOK_URL: 'https://hooks.slack.invalid/services/T000/B000/XXXX',
  ORANGE_WEBHOOK_SECRET: 'docs-test-secret',
};

/** `orange doctor` problems that are this machine's, not the config's: no agent CLI, no Docker engine, or an engine without the example's image. */
const MACHINE_PROBLEMS: readonly RegExp[] = [/is not installed on this machine/, /^no agent harness is installed/, /^docker: .*no engine answers/, /^docker: .*no such image on this engine/];

// ---------------------------------------------------------------------------------------------
// The report
// ---------------------------------------------------------------------------------------------

interface PageReport {
  readonly page: string;
  blocks: number;
  ran: number;
  readonly asked: number[];
  readonly refused: number[];
  blocksRun: number;
  readonly skippedBlocks: string[];
  readonly notRun: Map<string, number[]>;
  readonly otherPrograms: Map<string, number[]>;
  readonly configsLoaded: number[];
  readonly configsSkipped: string[];
  readonly machineProblems: Set<string>;
  modulesLoaded: number;
  readonly fragments: number[];
  readonly otherBlocks: Map<string, number>;
  readonly failures: string[];
  /** Tasks made for the commands, and seconds spent making them and cleaning up. */
  sandbox: { tasks: number; fixtureSeconds: number; cleanupSeconds: number } | null;
}

const newReport = (page: string): PageReport => ({
  page,
  blocks: 0,
  ran: 0,
  asked: [],
  refused: [],
  blocksRun: 0,
  skippedBlocks: [],
  notRun: new Map(),
  otherPrograms: new Map(),
  configsLoaded: [],
  configsSkipped: [],
  machineProblems: new Set(),
  modulesLoaded: 0,
  fragments: [],
  otherBlocks: new Map(),
  failures: [],
  sandbox: null,
});

const add = (map: Map<string, number[]>, key: string, line: number) => map.set(key, [...(map.get(key) ?? []), line]);
const lines = (at: readonly number[]) => `line${at.length > 1 ? 's' : ''} ${at.join(', ')}`;
const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

function printReport(r: PageReport): void {
  const out = [`${r.page}: ${count(r.blocks, 'code block')}`];
  if (r.ran > 0) {
    const ok = r.ran - r.asked.length - r.refused.length;
    out.push(`  ran ${count(r.ran, 'command')} in ${count(r.blocksRun, 'block')}: ${ok} ok`);
    if (r.asked.length) out.push(`  asked for confirmation (no terminal here), as they should: ${lines(r.asked)}`);
    if (r.refused.length) out.push(`  refused, in blocks marked may-refuse: ${lines(r.refused)}`);
  }
  for (const s of r.skippedBlocks) out.push(`  skipped block ${s}`);
  for (const [why, at] of r.notRun) out.push(`  not run (${why}; command and flags checked): ${lines(at)}`);
  for (const [program, at] of r.otherPrograms) out.push(`  not run (${program}): ${lines(at)}`);
  if (r.configsLoaded.length + r.configsSkipped.length > 0) {
    out.push(`  configs loaded: ${r.configsLoaded.length}${r.configsLoaded.length ? ` (${lines(r.configsLoaded)}; with ${count(r.modulesLoaded, 'module')} of the page)` : ''}`);
    for (const s of r.configsSkipped) out.push(`  config not loaded: ${s}`);
    for (const p of r.machineProblems) out.push(`  (ignored, this machine's: ${clip(p, 140)})`);
  }
  if (r.fragments.length) out.push(`  fragments and modules no config imports, not loaded: ${lines(r.fragments)}`);
  if (r.sandbox) out.push(`  sandbox: ${count(r.sandbox.tasks, 'task')} made for the commands (${r.sandbox.fixtureSeconds.toFixed(1)} s), cleaned up in ${r.sandbox.cleanupSeconds.toFixed(1)} s`);
  if (r.otherBlocks.size) out.push(`  other blocks, not run: ${[...r.otherBlocks].map(([lang, n]) => `${n} ${lang || 'bare'}`).join(', ')}`);
  console.log(out.join('\n'));
}

const clip = (text: string, max = 1500) => (text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters)` : text);

// ---------------------------------------------------------------------------------------------
// The sandbox the commands run in
// ---------------------------------------------------------------------------------------------

interface Fixture {
  readonly id: string;
  readonly workspace: string | null;
}

interface RunResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
}

/**
 * A Sandbox set up for the docs: an agent harness that only sleeps (`idle`, the config's), a
 * `claude` on PATH that only sleeps too (so `orange init` and `orange doctor` find an agent CLI,
 * as on a developer's machine), project app's clone, a HOME of its own, the sample files.
 */
class DocsWorld {
  fixtures = 0;
  fixtureMs = 0;
  private shared: Fixture | null = null;
  private clones = 0;
  private appRegistered = false;

  private constructor(
    readonly box: Sandbox,
    readonly home: string,
    readonly bin: string,
    readonly app: string,
    readonly samples: string,
  ) {}

  static async create(): Promise<DocsWorld> {
    const box = await Sandbox.create({ poolSize: 32 });
    // The agent only sleeps: tasks stay where the commands put them, and its window is a real one.
    await writeFile(
      join(box.dir, 'orange.config.mjs'),
      [
        "import { command } from '@orange/harness-command';",
        `import { minimal } from ${JSON.stringify(join(root, 'examples/workflows/minimal.ts'))};`,
        '',
        'export default {',
        "  harness: 'idle',",
        '  pollIntervalMs: 30_000,',
        '  workflows: [minimal],',
        "  plugins: [command({ name: 'idle', worker: ['sleep', '3600'] })],",
        '};',
        '',
      ].join('\n'),
    );
    const home = join(box.dir, 'user');
    const bin = join(box.dir, 'bin');
    await mkdir(bin, { recursive: true });
    await writeFile(join(bin, 'claude'), '#!/bin/sh\nif [ "$1" = --version ]; then echo "2.0.0 (Claude Code)"; exit 0; fi\nexec sleep 3600\n', { mode: 0o755 });
    const samples = join(box.dir, 'samples');
    await mkdir(samples, { recursive: true });
    for (const [name, text] of Object.entries(SAMPLE_FILES)) await writeFile(join(samples, name), text);
    // ~/src/app: a repository of its own with main and develop on its origin.
    const appOrigin = join(box.dir, 'app-origin.git');
    const app = join(home, 'src', 'app');
    await makeOrigin(appOrigin, app, { files: { 'README.md': '# app\n' }, alsoPush: ['main:develop'] });
    const memory = join(box.repo, '.orange', 'memory');
    await mkdir(memory, { recursive: true });
    for (const [i, task] of MEMORY_TASKS.entries()) {
      const completed = `2026-11-2${i + 1}T04:30:12.345Z`;
      const entry = { version: 1, task, summary: `Fix parser crash ${i + 1}`, completed_at: completed, intent: 'bugfix', phases: ['reproduce', 'fix'], tier: 'sonnet', lessons: 'Reset the parser in beforeEach.' };
      await writeFile(join(memory, `${completed.replace(/[:.]/g, '-')}-${task}.json`), `${JSON.stringify(entry, null, 2)}\n`);
    }
    return new DocsWorld(box, home, bin, app, samples);
  }

  env(extra: Readonly<Record<string, string>> = {}): Record<string, string> {
    return {
      ...this.box.env,
      HOME: this.home,
      PATH: `${this.bin}:${this.box.env.PATH ?? ''}`,
      XDG_CONFIG_HOME: join(this.home, '.config'),
      // The CLI's compile cache stays the machine's: a cold one in every sandbox costs seconds.
      ORANGE_CODE_CACHE_DIR: process.env.ORANGE_CODE_CACHE_DIR ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'orange'),
      ...extra,
    };
  }

  async orange(args: readonly string[], options: { cwd?: string; input?: string; env?: Record<string, string> } = {}): Promise<RunResult> {
    const result = await execa(process.execPath, [CLI, ...args], {
      cwd: options.cwd ?? this.box.repo,
      env: this.env(options.env),
      extendEnv: false,
      reject: false,
      input: options.input ?? '',
      timeout: 30_000,
    });
    return { code: result.exitCode ?? 1, stdout: String(result.stdout), stderr: String(result.stderr), timedOut: Boolean(result.timedOut) };
  }

  /** A task of project demo in the status `kind` says. */
  async fixture(kind: FixtureKind): Promise<Fixture> {
    if (kind === 'shared' && this.shared) return this.shared;
    const started = Date.now();
    try {
      const task = await this.makeFixture(kind === 'shared' ? 'planning' : kind);
      if (kind === 'shared') this.shared = task;
      return task;
    } finally {
      this.fixtureMs += Date.now() - started;
    }
  }

  private async makeFixture(kind: FixtureKind): Promise<Fixture> {
    const n = ++this.fixtures;
    const branch = `fixture/${n}`;
    const create = async (...extra: string[]) => {
      const result = await this.orange(['task', 'create', branch, `fixture task ${n}`, ...extra, '--json']);
      if (result.code !== 0) throw new Error(`making a ${kind} task failed: ${result.stderr || result.stdout}`);
      const task = (JSON.parse(result.stdout) as { task: { id: string; workspace: string | null } }).task;
      return { id: task.id, workspace: task.workspace };
    };
    if (kind === 'memory') return { id: MEMORY_TASKS[2] as string, workspace: null };
    if (kind === 'planning') return create();
    if (kind === 'unstarted') return create('--status', 'clarification', '--no-spawn');
    if (kind === 'stopped') {
      const task = await create('--workflow', 'pipeline');
      const stopped = await this.orange(['task', 'cancel', task.id, '--yes']);
      if (stopped.code !== 0) throw new Error(`stopping a pipeline fixture task failed: ${stopped.stderr}`);
      return task;
    }
    if (kind === 'reviewing') {
      // A branch with a commit, as a reviewed task has: merge then has something to merge.
      const repo = this.box.repo;
      await this.box.git(repo, 'switch', '-q', '-c', branch);
      await writeFile(join(repo, `fixture-${n}.txt`), `fixture ${n}\n`);
      await this.box.git(repo, 'add', `fixture-${n}.txt`);
      await this.box.git(repo, 'commit', '-q', '-m', `fixture ${n}`);
      await this.box.git(repo, 'switch', '-q', 'main');
      return create('--status', 'reviewing');
    }
    const task = await create('--no-spawn');
    if (kind === 'cancelled') {
      const cancelled = await this.orange(['task', 'cancel', task.id, '--yes']);
      if (cancelled.code !== 0) throw new Error(`cancelling a fixture task failed: ${cancelled.stderr}`);
    }
    return task;
  }

  /** A clone of demo's origin that no project holds, for `orange init` and `orange project add`. */
  async freshClone(): Promise<string> {
    const dir = join(this.box.dir, 'clones', `repo-${++this.clones}`);
    await mkdir(dirname(dir), { recursive: true });
    await this.box.git(this.box.dir, 'clone', '-q', this.box.origin, dir);
    return dir;
  }

  /** Registers project app, or removes it, as the next block needs. */
  async ensureApp(registered: boolean): Promise<void> {
    const listed = await this.orange(['project', 'list', '--json']);
    this.appRegistered = (JSON.parse(listed.stdout) as { projects: Array<{ name: string }> }).projects.some((p) => p.name === 'app');
    if (registered === this.appRegistered) return;
    const result = registered ? await this.orange(['project', 'add', this.app, '--name', 'app']) : await this.orange(['project', 'remove', 'app']);
    if (result.code !== 0) throw new Error(`${registered ? 'registering' : 'removing'} project app failed: ${result.stderr}`);
    this.appRegistered = registered;
  }

  /**
   * Cancels and deletes the tasks a few at a time, then the Sandbox's own cleanup (which cancels
   * each task left one by one and waits for every process of the sandbox to end) has little left.
   */
  async cleanup(): Promise<void> {
    const listed = await this.orange(['task', 'list', '--all', '--json']);
    const tasks = listed.code === 0 ? (JSON.parse(listed.stdout) as { tasks: Array<{ id: string; status: string }> }).tasks : [];
    const finished = new Set(['done', 'cancelled', 'completed', 'failed']);
    await inParallel(tasks.filter((t) => !finished.has(t.status)), (t) => this.orange(['task', 'cancel', t.id, '--yes']));
    await inParallel(tasks, (t) => this.orange(['task', 'delete', t.id, '--yes']));
    await this.box.cleanup();
  }
}

/** Runs `work` on each item, three at a time. */
async function inParallel<T>(items: readonly T[], work: (item: T) => Promise<unknown>): Promise<void> {
  const queue = [...items];
  await Promise.all([1, 2, 3].map(async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
  }));
}

// ---------------------------------------------------------------------------------------------
// Shell blocks
// ---------------------------------------------------------------------------------------------

/** Why a command is not run here, or null. `orange`, `orange dashboard` and `orange` with only dash's flags open the dashboard. */
function notRunReason(args: readonly string[]): string | null {
  const { id, rest } = commandOf(args, commandIds);
  const effective = id ?? (isDashboard(args) ? 'dash' : null);
  for (const entry of NOT_RUN) if (entry.id === effective && (entry.when?.(rest) ?? true)) return entry.why;
  return null;
}

function isDashboard(args: readonly string[]): boolean {
  if (args[0] === 'dashboard') return true;
  if (commandOf(args, commandIds).id !== null) return false;
  const dash = new Set([...allowedFlags('dash')].filter((f) => f !== '--help' && f !== '-h'));
  // Only dash's flags and their values (`-p app`, `--interval 500`): `orange --help` and `orange task --help` are no dashboard.
  return flagsUsed(args).every((f) => dash.has(f)) && positionals('dash', args).length === 0;
}

function allowedFlags(id: string): Set<string> {
  const allowed = new Set(['--help', '-h']);
  for (const [name, flag] of Object.entries(manifest.commands[id]?.flags ?? {})) {
    allowed.add(`--${name}`);
    if (flag.allowNo) allowed.add(`--no-${name}`);
    if (flag.char) allowed.add(`-${flag.char}`);
  }
  return allowed;
}

/** What is wrong with a command not run: an unknown command or flag, by the manifest. */
function staticProblem(args: readonly string[]): string | null {
  if (args[0] === 'dashboard') return staticProblem(['dash', ...args.slice(1)]);
  const { id, rest } = commandOf(args, commandIds);
  const command = id ?? (isDashboard(args) ? 'dash' : null);
  if (command === null) return `no command "${args.join(' ')}" in the manifest`;
  const allowed = allowedFlags(command);
  const unknown = flagsUsed(rest).filter((f) => !allowed.has(f));
  return unknown.length ? `orange ${command.replace(/:/g, ' ')} has no flag ${unknown.join(', ')}` : null;
}

/** What one command's placeholders are replaced with: its own tasks, one per sample id. */
interface CommandContext {
  readonly world: DocsWorld;
  readonly tasks: Map<string, Fixture>;
}

async function taskFor(ctx: CommandContext, sample: string, commandId: string | null): Promise<Fixture> {
  const key = sample === '<id>' || sample === 'ID' || sample === '<task-id>' ? 'ID' : sample;
  let task = ctx.tasks.get(key);
  if (!task) {
    task = await ctx.world.fixture(FIXTURE_FOR[commandId ?? ''] ?? 'planning');
    ctx.tasks.set(key, task);
  }
  return task;
}

async function substitute(ctx: CommandContext, word: string, commandId: string | null): Promise<string> {
  if (isSampleId(word)) return (await taskFor(ctx, word, commandId)).id;
  if (word === '~/src/app') return ctx.world.app;
  if (word.startsWith('~/')) return join(ctx.world.home, word.slice(2));
  const sample = SAMPLE_FILES[word] === undefined ? null : join(ctx.world.samples, word);
  if (sample) return sample;
  if (/<[^>]+>/.test(word)) throw new Error(`the placeholder ${word} has no row in the SUBSTITUTIONS comment of docs.test.ts`);
  return word;
}

/** The arguments of a command line: its words without the flags and their values. */
function positionals(id: string, rest: readonly string[]): string[] {
  const flags = Object.entries(manifest.commands[id]?.flags ?? {});
  const takesValue = (word: string) =>
    flags.some(([name, f]) => f.type === 'option' && (word === `--${name}` || (f.char !== undefined && word === `-${f.char}`)));
  const found: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const word = rest[i] as string;
    if (word === '-' || !word.startsWith('-')) found.push(word);
    else if (takesValue(word)) i++;
  }
  return found;
}

/** Whether a command finds its task from the directory (no id given). */
function findsItsTask(args: readonly string[]): boolean {
  const { id, rest } = commandOf(args, commandIds);
  if (id === null || !FINDS_ITS_TASK.has(id)) return false;
  if (id === 'task:section:set') return !rest.includes('--task');
  return !rest.some(isSampleId);
}

async function runShellBlock(page: string, block: FencedBlock, world: () => Promise<DocsWorld>, report: PageReport): Promise<void> {
  const commands = shellCommands(block);
  const plans = commands.flatMap((command) => planCommand(command).map((plan) => ({ command, plan })));
  const fail = (command: ShellCommand, why: string) => report.failures.push(`${page}:${command.line}: ${command.text}\n  ${why.replace(/\n/g, '\n  ')}`);
  const check = (command: ShellCommand, args: readonly string[]) => {
    const problem = staticProblem(args);
    if (problem) fail(command, problem);
  };
  if (block.mark?.kind === 'skip') {
    report.skippedBlocks.push(`at line ${block.line} (${block.mark.reason})`);
    for (const { command, plan } of plans) if (plan.kind === 'orange') check(command, plan.args);
    return;
  }
  if (!plans.some((p) => p.plan.kind === 'orange')) {
    for (const { command, plan } of plans) if (plan.kind !== 'orange') add(report.otherPrograms, plan.kind === 'cd' ? 'cd' : plan.program, command.line);
    return;
  }
  const run = plans.filter((p) => p.plan.kind === 'orange' && notRunReason(p.plan.args) === null);
  if (run.length === 0) {
    for (const { command, plan } of plans) {
      if (plan.kind === 'orange') {
        add(report.notRun, notRunReason(plan.args) ?? '', command.line);
        check(command, plan.args);
      } else add(report.otherPrograms, plan.kind === 'cd' ? 'cd' : plan.program, command.line);
    }
    return;
  }
  const w = await world();
  const blockContext: CommandContext = { world: w, tasks: new Map() };
  const mentionsApp = plans.some(({ plan }) => (plan.kind === 'orange' ? plan.args : plan.kind === 'cd' ? [plan.dir] : []).some((a) => a === 'app' || a === '~/src/app'));
  if (mentionsApp) await w.ensureApp(!run.some(({ plan }) => plan.kind === 'orange' && commandOf(plan.args, commandIds).id === 'project:add'));
  // A block with a command that finds its task runs in that task's worktree, as the docs say.
  let cwd = w.box.repo;
  if (run.some(({ plan }) => plan.kind === 'orange' && findsItsTask(plan.args))) {
    const task = await w.fixture('shared');
    if (task.workspace === null) throw new Error(`${page}:${block.line}: the block's task has no worktree to run in`);
    cwd = task.workspace;
  }
  let ranHere = 0;
  for (const { command, plan } of plans) {
    if (plan.kind === 'other') {
      add(report.otherPrograms, plan.program, command.line);
      continue;
    }
    if (plan.kind === 'cd') {
      const dir = await substitute(blockContext, plan.dir, null);
      if (existsSync(dir)) cwd = dir;
      else add(report.otherPrograms, `cd to ${plan.dir}, not in the sandbox`, command.line);
      continue;
    }
    const why = notRunReason(plan.args);
    if (why) {
      add(report.notRun, why, command.line);
      check(command, plan.args);
      continue;
    }
    const { id } = commandOf(plan.args, commandIds);
    const ctx: CommandContext = { world: w, tasks: new Map() };
    const args: string[] = [];
    try {
      for (const word of plan.args) args.push(await substitute(ctx, word, id));
    } catch (error) {
      fail(command, (error as Error).message);
      continue;
    }
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(plan.env)) env[name] = name === 'ORANGE_HOME' ? join(w.box.dir, 'other-home') : value;
    const input = plan.input ? producedInput(plan.input, sampleFile) : '';
    // init and a path-less project add act on the repository they run in: a fresh clone each,
    // unless the block went somewhere with cd.
    const fresh = cwd === w.box.repo && (id === 'init' || (id === 'project:add' && positionals(id, commandOf(plan.args, commandIds).rest).length === 0));
    const dir = fresh ? await w.freshClone() : cwd;
    const result = await w.orange(args, { cwd: dir, input, env });
    ranHere++;
    report.ran++;
    const output = `exit ${result.code}; ran: orange ${args.map((a) => (/[\s"']/.test(a) ? JSON.stringify(a) : a)).join(' ')}\n  in ${relative(w.box.dir, dir) || '.'} of the sandbox\n  stdout: ${clip(result.stdout.trim()) || '(none)'}\n  stderr: ${clip(result.stderr.trim()) || '(none)'}`;
    if (result.timedOut) fail(command, `did not end within 30 s; ${output}`);
    else if (/unexpected error|E_INTERNAL/.test(result.stderr + result.stdout)) fail(command, `an unexpected error (a bug); ${output}`);
    else if (result.code === 0) continue;
    else if (result.code === 1 && /needs confirmation and there is no terminal to ask/.test(result.stderr + result.stdout)) report.asked.push(command.line);
    else if (result.code === 1 && block.mark?.kind === 'may-refuse') report.refused.push(command.line);
    else fail(command, `${result.code === 2 ? 'bad usage' : block.mark?.kind === 'may-refuse' ? 'failed' : 'refused (mark the block may-refuse if that is what it shows)'}: ${output}`);
  }
  if (ranHere > 0) report.blocksRun++;
}

// ---------------------------------------------------------------------------------------------
// Config blocks
// ---------------------------------------------------------------------------------------------

interface ModuleBlock {
  readonly block: FencedBlock;
  readonly info: ReturnType<typeof moduleInfo>;
}

/** The source of `./x/y.js` imported with `names`: a block of the page, else the file under examples/. */
function findModule(modules: readonly ModuleBlock[], at: number, from: string, names: readonly string[]): { code: string; line: number | null } | null {
  const target = from.replace(/^\.\//, '').replace(/\.m?js$/, '.ts');
  const byDistance = [...modules].filter((m) => !m.info.isConfig).sort((a, b) => Math.abs(a.block.line - at) - Math.abs(b.block.line - at) || a.block.line - b.block.line);
  // Before the config first, then after it.
  const ordered = [...byDistance.filter((m) => m.block.line < at), ...byDistance.filter((m) => m.block.line > at)];
  const found =
    ordered.find((m) => m.info.path === target) ?? ordered.find((m) => m.info.path === null && names.length > 0 && names.every((n) => m.info.exports.includes(n)));
  if (found) return { code: found.block.lines.join('\n'), line: found.block.line };
  for (const candidate of [join('examples', target), ...readdirSync(join(root, 'examples')).map((d) => join('examples', d, target))]) {
    if (existsSync(join(root, candidate))) return { code: readFileSync(join(root, candidate), 'utf8'), line: null };
  }
  return null;
}

let configsRoot: string | null = null;
afterAll(async () => {
  if (configsRoot) await rm(configsRoot, { recursive: true, force: true });
});

async function loadConfigBlock(page: string, modules: readonly ModuleBlock[], config: ModuleBlock, report: PageReport, used: Set<number>): Promise<void> {
  const { block, info } = config;
  if (!configsRoot) configsRoot = await mkdtemp(join(tmpdir(), 'orange-docs-'));
  const dir = join(configsRoot, `${page.replace(/[^\w]+/g, '-')}-${block.line}`);
  await mkdir(dir, { recursive: true });
  // Packages a plugin of the docs imports besides Orange's own (execa) resolve from the monorepo.
  await symlink(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  const files = new Map<string, string>([[block.lang === 'js' || block.lang === 'mjs' || block.lang === 'javascript' ? 'orange.config.mjs' : 'orange.config.ts', block.lines.join('\n')]]);
  const pending = [{ code: block.lines.join('\n'), base: '.' }];
  let fromPage = 0;
  while (pending.length > 0) {
    const { code, base } = pending.pop() as { code: string; base: string };
    const imports = moduleInfo({ ...block, lines: code.split('\n') }).localImports;
    for (const { from, names } of imports) {
      const path = join(base, from).replace(/\.m?js$/, '.ts');
      if (files.has(path)) continue;
      const found = findModule(modules, block.line, join(base, from), names);
      if (!found) {
        report.configsSkipped.push(`line ${block.line}: imports ${from}, which neither the page nor examples/ shows`);
        return;
      }
      if (found.line !== null) {
        used.add(found.line);
        fromPage++;
      }
      files.set(path, found.code);
      pending.push({ code: found.code, base: dirname(path) });
    }
  }
  for (const [path, code] of files) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), `${code}\n`);
  }
  const result = await execa(process.execPath, [CLI, 'doctor', '--json'], {
    cwd: dir,
    env: { ...process.env, ...CONFIG_ENV, HOME: dir, ORANGE_HOME: join(dir, '.orange-home'), ORANGE_TMUX_SOCKET: `orange-docs-${process.pid}` },
    reject: false,
    timeout: 30_000,
  });
  let doctor: { config?: string | null; problems?: string[] };
  try {
    doctor = JSON.parse(String(result.stdout)) as typeof doctor;
  } catch {
    report.failures.push(`${page}:${block.line}: orange doctor --json printed no JSON for this config (exit ${result.exitCode}):\n  ${clip(String(result.stdout) + String(result.stderr))}`);
    return;
  }
  const problems = (doctor.problems ?? []).filter((p) => !MACHINE_PROBLEMS.some((m) => m.test(p)));
  for (const p of doctor.problems ?? []) if (!problems.includes(p)) report.machineProblems.add(p.replace(dir, '<config dir>'));
  if (!doctor.config || problems.length > 0) {
    const shown = [...files.keys()].join(', ');
    report.failures.push(`${page}:${block.line}: the config does not load cleanly (files written: ${shown}):\n  ${(problems.length ? problems : doctor.problems ?? ['no config found']).join('\n  ')}`);
    return;
  }
  report.configsLoaded.push(block.line);
  report.modulesLoaded += fromPage;
}

// ---------------------------------------------------------------------------------------------
// The test
// ---------------------------------------------------------------------------------------------

describe('the docs: every example command and config of README.md and docs/ runs', () => {
  for (const page of docPages()) {
    it(`${page}`, { timeout: 240_000 }, async () => {
      const blocks = fencedBlocks(readFileSync(join(root, page), 'utf8'));
      const report = newReport(page);
      report.blocks = blocks.length;
      let world: DocsWorld | null = null;
      const lazyWorld = async () => (world ??= await DocsWorld.create());
      try {
        const modules: ModuleBlock[] = blocks.filter((b) => MODULE_LANGS.has(b.lang)).map((block) => ({ block, info: moduleInfo(block) }));
        const used = new Set<number>();
        for (const block of blocks) {
          if (SHELL_LANGS.has(block.lang)) await runShellBlock(page, block, lazyWorld, report);
          else if (MODULE_LANGS.has(block.lang)) {
            const module = modules.find((m) => m.block === block) as ModuleBlock;
            if (!module.info.isConfig) continue;
            if (block.mark?.kind === 'skip') report.configsSkipped.push(`line ${block.line} (${block.mark.reason})`);
            else await loadConfigBlock(page, modules, module, report, used);
          } else report.otherBlocks.set(block.lang, (report.otherBlocks.get(block.lang) ?? 0) + 1);
        }
        report.fragments.push(...modules.filter((m) => !m.info.isConfig && !used.has(m.block.line)).map((m) => m.block.line));
      } finally {
        const made = world as DocsWorld | null;
        if (made) {
          const started = Date.now();
          await made.cleanup();
          report.sandbox = { tasks: made.fixtures, fixtureSeconds: made.fixtureMs / 1000, cleanupSeconds: (Date.now() - started) / 1000 };
        }
        printReport(report);
      }
      if (report.failures.length > 0) throw new Error(`${report.failures.length} example(s) of ${page} failed:\n\n${report.failures.join('\n\n')}`);
    });
  }
});
