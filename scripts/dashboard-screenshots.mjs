#!/usr/bin/env node
// Screenshots of `orange dash` for the README and docs/dashboard.md, from a real run: a throwaway
// world (its own ORANGE_HOME, a repository with a bare origin, the scripted agent as harness, tasks
// in several statuses), the dashboard in a 120×34 tmux pane, the pane captured with its colours
// and drawn by xterm.js in headless Chromium.
//   node scripts/dashboard-screenshots.mjs     writes docs/images/dashboard-{board,help}.png
// Needs a build (npm run build), tmux, and Chromium at /usr/bin/chromium (or $CHROMIUM).
// Everything it starts runs on two tmux servers of its own, never the default one, and is
// stopped before it ends; the world is removed.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, readlink, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { benchRepo, GIT, root } from '../bench/lib.mjs';

const CLI = join(root, 'packages/cli/bin/run.cjs');
const AGENT = join(root, 'packages/cli/agents/scripted-agent.mjs');
const OUT = join(root, 'docs/images');
const COLS = 120;
const ROWS = 34;
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync', '--disable-quic'];
// The web page's terminal (packages/web/app/src/components/terminal-view.tsx), so both look alike.
const FONT_FAMILY = 'ui-monospace, "SFMono-Regular", "JetBrains Mono", "Cascadia Mono", Menlo, Consolas, "DejaVu Sans Mono", "Liberation Mono", monospace';
const THEME = { background: '#0b0d11', foreground: '#d7dae0', cursor: '#0b0d11', cursorAccent: '#0b0d11' };

/** Runs a program; rejects with its stderr unless `allowFail`. */
function run(file, args, { env, cwd, allowFail = false } = {}) {
  return new Promise((resolve, reject) => {
    execFile(file, args, { env, cwd, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error && !allowFail) reject(new Error(`${file} ${args.join(' ')}: ${String(stderr).trim() || error.message}`));
      else resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

/** The dashboard's screen as text, for a timeout's message (set once the dashboard's pane is known). */
let lastScreen;

/** Polls `probe` (which returns a value, or null for "not yet") every 150 ms until `ms` have passed. */
async function waitFor(what, probe, ms = 60_000) {
  const deadline = Date.now() + ms;
  let last;
  while (Date.now() < deadline) {
    const value = await probe().catch(() => null);
    if (value) return value;
    last = await lastScreen?.();
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`timed out waiting for ${what}${last ? `; the screen:\n${last}` : ''}`);
}

/** Where tmux keeps server `name`'s socket; `kill-server` leaves the file behind. */
const socketFile = (name) => join(process.env.TMUX_TMPDIR || '/tmp', `tmux-${process.getuid()}`, name);

/**
 * Live processes of the world: those whose working directory is inside `dir` (agents and their
 * wrappers work in its worktrees) or whose command line names `dir` or a task id (exit reports).
 */
async function processesOf(dir, ids) {
  const inside = await realpath(dir).catch(() => dir);
  const found = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    const args = (await readFile(`/proc/${name}/cmdline`, 'utf8').catch(() => '')).split('\0').join(' ').trim();
    const cwd = await readlink(`/proc/${name}/cwd`).catch(() => null);
    const isOurs = (cwd !== null && (cwd === inside || cwd.startsWith(inside + sep))) || (args !== '' && [dir, inside, ...ids].some((s) => args.includes(s)));
    if (isOurs) found.push({ pid: Number(name), args });
  }
  return found;
}

const dir = await mkdtemp(join(tmpdir(), 'orange-dash-shots-'));
const tag = `${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
const agents = `orange-shots-agents-${tag}`; // ORANGE_TMUX_SOCKET: the agents' server
const screen = `orange-shots-dash-${tag}`; // the dashboard's own terminal
const { TMUX: _t, TMUX_PANE: _p, ORANGE_TASK_ID: _i, ORANGE_PROJECT: _j, NO_COLOR: _n, ...inherited } = process.env;
const env = { ...inherited, ...GIT, ORANGE_HOME: join(dir, 'home'), ORANGE_TMUX_SOCKET: agents };
const orange = (args, options = {}) => run(process.execPath, [CLI, ...args], { env, cwd: join(dir, 'repo'), ...options });
const tmux = (...args) => run('tmux', ['-L', screen, ...args], { env });
const ids = [];
let browser;

/** Creates a task in project `app` and returns its id. */
async function createTask(args, context) {
  const { stdout } = await orange(['task', 'create', '--project', 'app', ...args, '--json', ...(context ? ['--context', context] : [])]);
  const json = JSON.parse(stdout);
  const id = json.task?.id ?? json.id;
  ids.push(id);
  return id;
}

/** The pane as text, or with its colours (`-e`: SGR sequences kept). */
const capture = async (colours = false) => (await tmux('capture-pane', '-p', ...(colours ? ['-e'] : []), '-t', 'dash')).stdout;
lastScreen = () => capture().catch(() => '');

/** Draws a captured pane with xterm.js in Chromium and saves the terminal as a PNG. */
async function shoot(text, name) {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 }, deviceScaleFactor: 2 });
  try {
    await page.goto(pathToFileURL(join(dir, 'terminal.html')).href);
    await page.evaluate(
      ({ data, cols, rows, theme, fontFamily }) =>
        new Promise((resolve) => {
          document.fonts.ready.then(() => {
            const term = new globalThis.Terminal({ cols, rows, theme, fontFamily, fontSize: 14, lineHeight: 1.1, cursorBlink: false, cursorInactiveStyle: 'none', scrollback: 0 });
            term.open(document.getElementById('term'));
            // capture-pane ends lines with \n; a terminal needs \r\n to go back to column 0.
            term.write(data.replace(/\n$/, '').replace(/\n/g, '\r\n'), () => requestAnimationFrame(() => requestAnimationFrame(resolve)));
          });
        }),
      { data: text, cols: COLS, rows: ROWS, theme: THEME, fontFamily: FONT_FAMILY },
    );
    const file = join(OUT, `dashboard-${name}.png`);
    await page.locator('#frame').screenshot({ path: file });
    console.log(`wrote ${file}`);
  } finally {
    await page.close();
  }
}

try {
  // The world: a repository with a bare origin, the scripted agent as the harness, project `app`.
  const repo = await benchRepo(dir, env, '# app\n\nA small web shop.\n');
  await run('git', ['remote', 'set-head', 'origin', 'main'], { cwd: repo, env });
  const harness = pathToFileURL(join(root, 'plugins/harness-command/dist/index.js')).href;
  await writeFile(
    join(dir, 'orange.config.mjs'),
    [
      `import { command } from ${JSON.stringify(harness)};`,
      'export default {',
      "  harness: 'scripted',",
      '  pollIntervalMs: 30_000,',
      `  plugins: [command({ name: 'scripted', worker: [${JSON.stringify(process.execPath)}, ${JSON.stringify(AGENT)}] })],`,
      '};',
      '',
    ].join('\n'),
  );
  await orange(['project', 'add', repo, '--name', 'app', '--pool-size', '3']);

  // Tasks in several statuses: one reviewed (its agent's whole life in the preview), one at work
  // (a long pace keeps it there), one pending, one waiting for a human review, one cancelled.
  const cancelled = await createTask(['chore/old-logo', 'Replace the old logo', '--no-spawn']);
  await orange(['task', 'cancel', cancelled, '--project', 'app', '--yes']);
  await createTask(['docs/api-keys', 'Document where the API keys come from', '--status', 'reviewing']);
  await createTask(['chore/update-deps', 'Update the dependencies', '--no-spawn']);
  await createTask(['fix/empty-cart', 'Fix the crash on an empty cart'], 'Reproduce it with a test first.\n\nagent.pace: 60000\n');
  const reviewed = await createTask(['feature/login-form', 'Add the login form with validation'], 'Validate the email and the password on submit.\n\nagent.reviews: PASS\n');

  // Until the task is in reviewing and its worker says so (the reviewer's window is gone by then).
  await waitFor('the reviewed task', async () => (await readFile(join(dir, 'home/agent-logs', `${reviewed}.log`), 'utf8')).includes('review passed'), 90_000);

  await writeFile(
    join(dir, 'terminal.html'),
    `<!doctype html><meta charset="utf-8">
<link rel="stylesheet" href="${pathToFileURL(join(root, 'node_modules/@xterm/xterm/css/xterm.css')).href}">
<style>body { margin: 0; background: #0b0d11; } #frame { display: inline-block; padding: 14px 16px; background: #0b0d11; }</style>
<div id="frame"><div id="term"></div></div>
<script src="${pathToFileURL(join(root, 'node_modules/@xterm/xterm/lib/xterm.js')).href}"></script>`,
  );
  const { chromium } = await import('playwright-core');
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });

  // The dashboard in a terminal of its own. The server takes its environment from this client.
  await tmux('new-session', '-d', '-s', 'dash', '-x', String(COLS), '-y', String(ROWS), '-c', repo, process.execPath, CLI, 'dash', '--project', 'app');
  await waitFor('every task on screen', async () => {
    const text = await capture();
    return ['feature/login-form', 'fix/empty-cart', 'chore/update-deps', 'docs/api-keys', 'chore/old-logo'].every((b) => text.includes(b)) && /fix\/empty-cart.*\bplanning\b/.test(text) && text;
  });
  // The reviewed task selected: k to the top, then j until the preview is its worker's.
  for (let i = 0; i < 6; i++) await tmux('send-keys', '-t', 'dash', 'k');
  await waitFor('the reviewed task selected', async () => {
    const text = await capture();
    if (text.includes(`[worker] ${reviewed}`) && text.includes('review passed; waiting for the human to merge')) return text;
    await tmux('send-keys', '-t', 'dash', 'j');
    await new Promise((r) => setTimeout(r, 400));
    return null;
  });
  // Then until its AHEAD / CHANGES (read from its worktree) and who runs the monitor are shown.
  await waitFor('the diff stat and the monitor', async () => {
    const text = await capture();
    return /feature\/login-form.*reviewing.*\+\d+ -\d+/.test(text) && /\d+ ahead/.test(text) && text.includes('monitor: here') && text.includes(`[worker] ${reviewed}`);
  });
  await shoot(await capture(true), 'board');

  await tmux('send-keys', '-t', 'dash', '?');
  await waitFor('the help screen', async () => (await capture()).includes('Orange dashboard — keys'));
  await shoot(await capture(true), 'help');

  // Any key but j/k leaves the help; then q quits, and the dashboard's session (and server) ends.
  await tmux('send-keys', '-t', 'dash', 'Escape');
  await waitFor('the board again', async () => (await capture()).includes('fix/empty-cart'));
  await tmux('send-keys', '-t', 'dash', 'q');
  await waitFor('the dashboard to quit', async () => (await run('tmux', ['-L', screen, 'has-session', '-t', 'dash'], { env, allowFail: true })).code !== 0, 15_000).catch((e) =>
    console.warn(String(e.message).split('\n')[0]),
  );
} finally {
  lastScreen = undefined;
  await browser?.close().catch(() => undefined);
  await run('tmux', ['-L', screen, 'kill-server'], { env, allowFail: true });
  for (const id of ids) await orange(['task', 'cancel', id, '--project', 'app', '--yes'], { allowFail: true });
  await run('tmux', ['-L', agents, 'kill-server'], { env, allowFail: true });
  // Notifications leave through a detached deliverer, and the agents' wrappers report their end:
  // both write under ORANGE_HOME, so they must be done before it goes.
  const left = await waitFor('the world to stop', async () => (await processesOf(dir, ids)).length === 0, 20_000).then(
    () => [],
    () => processesOf(dir, ids),
  );
  for (const { pid, args } of left) {
    console.warn(`still running, killed: ${pid} ${args}`);
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone meanwhile.
    }
  }
  // A move in flight when the server went (an exit report's rule) may have started it again.
  await run('tmux', ['-L', agents, 'kill-server'], { env, allowFail: true });
  await rm(socketFile(screen), { force: true });
  await rm(socketFile(agents), { force: true });
  await rm(dir, { recursive: true, force: true, maxRetries: 5 });
}
