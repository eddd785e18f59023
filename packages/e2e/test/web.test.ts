import { existsSync } from 'node:fs';
import { readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { CLI, Sandbox } from './sandbox.js';
import { Terminal } from './terminal.js';
import { browserMissing, BrowserSession } from './web-page.js';
import { startWeb, type RunningWeb } from './web-server.js';

// Screenshots go to $ORANGE_WEB_SCREENSHOTS (docs/images when refreshing the docs), else a temp
// folder that is kept only when a test failed (its screenshot explains the failure).
const SHOTS = process.env.ORANGE_WEB_SCREENSHOTS ?? join(tmpdir(), `orange-web-shots-${process.pid}`);
let failed = false;
afterAll(async () => {
  if (!process.env.ORANGE_WEB_SCREENSHOTS && !failed) await rm(SHOTS, { recursive: true, force: true });
});
const missing = browserMissing();
if (missing) console.warn(`skipping the browser tests of orange web: ${missing}`);

let box: Sandbox | undefined;
let web: RunningWeb | undefined;
let browser: BrowserSession | undefined;
let term: Terminal | undefined;
afterEach(async (context) => {
  // A failing test shows what the page and the server said.
  if (context.task.result?.state === 'fail') failed = true;
  if (context.task.result?.state === 'fail' && browser) {
    const text = await browser.page.locator('body').innerText().catch((error: unknown) => String(error));
    const shot = await browser.screenshot(SHOTS, `failed-${context.task.name.slice(0, 40).replace(/\W+/g, '-')}`).catch(() => '(none)');
    console.error(`page at ${browser.page.url()} (screenshot ${shot}):\n${text.slice(0, 3000)}\npage problems:\n${browser.problems.join('\n') || '(none)'}\norange web stderr:\n${web?.stderr() ?? ''}`);
  }
  await browser?.close();
  browser = undefined;
  await web?.stop();
  web = undefined;
  await term?.close();
  term = undefined;
  await box?.cleanup();
  box = undefined;
});

describe('stopping orange web', () => {
  it('Ctrl-C (SIGINT) and SIGTERM stop it with exit 0, its gateway sockets gone', async () => {
    box = await Sandbox.create();
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      const running = await startWeb(box);
      await box.waitFor('orange web to serve the gateway', async () => existsSync(box!.paths.gatewaySocket));
      running.process.kill(signal);
      const result = await running.process;
      expect({ exitCode: result.exitCode, signal: result.signal }, `orange web after ${signal}: ${running.stderr()}`).toEqual({ exitCode: 0, signal: undefined });
      expect(existsSync(box.paths.gatewaySocket)).toBe(false);
      expect(existsSync(box.paths.peopleSocket)).toBe(false);
    }
  });

  it('closing its terminal (SIGHUP) stops it with exit 0, not a crash, its gateway sockets gone', async () => {
    box = await Sandbox.create();
    term = new Terminal(box);
    await term.open();
    const exitFile = join(box.dir, 'web-exit');
    // Under a shell that ignores the hang-up: it outlives the terminal to write down how orange web ended.
    await term.type(`sh -c 'trap "" HUP; node ${CLI} web --port 0; echo $? > ${exitFile}'`);
    await term.screenShows('/?token=');
    await box.waitFor('orange web to serve the gateway', async () => existsSync(box!.paths.gatewaySocket));
    // Its pty closes: the shell (the session leader) is hung up, then orange web in the foreground.
    await term.close();
    await box.waitFor('orange web to exit after its terminal closed', async () => existsSync(exitFile), 30_000);
    // 134 or 139 here is Node aborting on a terminal it can no longer restore.
    expect((await readFile(exitFile, 'utf8')).trim(), await term.logTail()).toBe('0');
    expect(existsSync(box.paths.gatewaySocket)).toBe(false);
    expect(existsSync(box.paths.peopleSocket)).toBe(false);
  });
});

describe.skipIf(missing !== null)('orange web in a real browser, against real tmux agents', () => {
  it('follows the fleet live: tasks created and moved by the CLI appear on the open board', async () => {
    box = await Sandbox.create();
    web = await startWeb(box);
    browser = await BrowserSession.open();
    await browser.signIn(web);
    const { page } = browser;
    // The address bar no longer shows the token: it is a cookie now, which scripts cannot read.
    expect(page.url()).toBe(`${web.base}/`);
    expect(await page.evaluate(() => (globalThis as unknown as { document: { cookie: string } }).document.cookie)).toBe('');

    const id = await box.createTask(['chore/live', 'made by the CLI while the page is open', '--no-spawn']);
    await page.getByTestId(`row-${id}`).waitFor({ timeout: 5_000 });
    await expect.poll(() => page.getByTestId(`status-${id}`).textContent(), { timeout: 5_000 }).toContain('pending');
    const cancelled = await box.orange(['task', 'cancel', id, '--yes']);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    // Pushed, not polled: the page shows the status the CLI wrote well within a poll interval (30 s).
    const written = (await stat(box.paths.taskStateFile('demo', id))).mtimeMs;
    await page.getByTestId(`row-${id}`).and(page.locator('[data-status="cancelled"]')).waitFor({ timeout: 5_000 });
    const shownAt = await page.evaluate(() => Date.now());
    expect(shownAt - written).toBeLessThan(5_000);
  });

  it('runs an agent in a terminal on the page that follows its output and takes a keystroke', async () => {
    box = await Sandbox.create();
    // Once its review passed, the scripted worker stays alive in reviewing, reading lines from its terminal.
    const id = await box.createTask(['feature/typed', 'a worker that reads what is typed'], 'agent.reviews: PASS\n');
    await box.createTask(['chore/queued', 'Bump the CI image to Node 22', '--no-spawn']);
    await box.createTask(['docs/contributing', 'Write a CONTRIBUTING guide', '--status', 'reviewing']);
    const dropped = await box.createTask(['feature/dark-mode', 'Try a dark mode for the docs site', '--no-spawn']);
    expect((await box.orange(['task', 'cancel', dropped, '--yes'])).code).toBe(0);
    await box.waitForStatus(id, 'reviewing', 60_000);
    await box.waitFor('the worker to wait for notices', async () => (await box!.agentLog(id)).includes('waiting for the review'), 15_000);
    web = await startWeb(box);
    browser = await BrowserSession.open();
    await browser.signIn(web);
    const { page } = browser;
    await page.getByTestId(`row-${id}`).waitFor();
    await browser.screenshot(SHOTS, 'web-board-1440');
    await page.goto(`${web.base}/#/task/demo/${id}/worker`);
    const terminal = page.getByTestId('terminal-worker');
    // What xterm drew, row by row (the container also holds xterm's style sheet).
    const screen = () => terminal.locator('.xterm-rows').textContent();
    await expect.poll(screen, { timeout: 15_000 }).toMatch(/worker: /);
    // Read-only until the person asks to type: a key pressed now reaches nobody.
    await terminal.click();
    await page.keyboard.type('ignored');
    await page.getByTestId('type-worker').click();
    await expect.poll(() => terminal.getAttribute('data-typing')).toBe('true');
    await terminal.click();
    await page.keyboard.type('hello from the page');
    await page.keyboard.press('Enter');
    await box.waitFor('the worker to read the line typed on the page', async () => (await box!.agentLog(id)).includes('notified: hello from the page'), 15_000);
    expect(await box.agentLog(id)).not.toContain('ignored');
    // The agent's answer comes back to the page live.
    await expect.poll(screen, { timeout: 10_000 }).toContain('notified: hello from the page');
    // What an agent prints is terminal text, never markup.
    await page.keyboard.type('<img src=x onerror="globalThis.__pwned=5">');
    await page.keyboard.press('Enter');
    await expect.poll(screen, { timeout: 10_000 }).toContain('notified: <img src=x onerror="globalThis.__pwned=5">');
    expect(await terminal.locator('img').count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    await browser.screenshot(SHOTS, 'web-terminal-1440');
  });

  it('merges from the page: the task is done and its commit is on the bare origin', async () => {
    box = await Sandbox.create();
    const id = await box.createTask(['feature/merge-me', 'merged from the browser'], 'agent.reviews: PASS\n');
    await box.waitForStatus(id, 'reviewing', 60_000);
    web = await startWeb(box);
    browser = await BrowserSession.open();
    await browser.signIn(web, `#/task/demo/${id}/diff`);
    const { page } = browser;
    await page.getByTestId('diff-file').first().waitFor({ timeout: 10_000 });
    await browser.screenshot(SHOTS, 'web-diff-1440');
    await page.getByTestId('action-merge').click();
    await expect.poll(() => page.getByTestId('message').getAttribute('data-kind'), { timeout: 30_000 }).toBe('ok');
    expect(await page.getByTestId('message').textContent()).toContain('done');
    expect((await box.task(id)).meta.status).toBe('done');
    expect(await box.git(box.origin, 'log', '--format=%s', 'main')).toContain(`implement the task for task ${id}`);
    await expect.poll(() => page.getByTestId('task-status').textContent(), { timeout: 5_000 }).toContain('done');
  });

  it('opens the place asked for while the page was still loading, not the board', async () => {
    box = await Sandbox.create();
    const id = await box.createTask(['chore/early-link', 'asked for while loading', '--no-spawn']);
    web = await startWeb(box);
    browser = await BrowserSession.open();
    const { page } = browser;
    // The hash changes after the first render and before the page's effects run (they wait for a
    // frame): its hashchange fires before the page listens, as when a test or a person follows a
    // link the moment the page has loaded. Without the page's second look it stayed on the board.
    await page.addInitScript((hash: string) => {
      const window = globalThis as unknown as { document: { addEventListener(type: string, listener: () => void): void }; location: { hash: string } };
      window.document.addEventListener('DOMContentLoaded', () => {
        window.location.hash = hash;
      });
    }, `#/task/demo/${id}/task`);
    await page.goto(web.url);
    await page.getByTestId('task-summary').waitFor({ timeout: 10_000 });
    expect(await page.getByTestId('task-summary').textContent()).toContain('asked for while loading');
    expect(page.url()).toBe(`${web.base}/#/task/demo/${id}/task`);
  });

  it('shows every string from a task as text, never as HTML', async () => {
    box = await Sandbox.create();
    const hostile = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>';
    const id = await box.createTask(['chore/hostile', hostile, '--no-spawn'], `<b>bold?</b> <img src=y onerror="window.__pwned=3">\n\n[link](javascript:window.__pwned=4)\n`);
    web = await startWeb(box);
    browser = await BrowserSession.open();
    await browser.signIn(web);
    const { page } = browser;
    const row = page.getByTestId(`row-${id}`);
    await row.waitFor({ timeout: 5_000 });
    expect(await row.textContent()).toContain('<img src=x onerror=');
    expect(await row.locator('img, script').count()).toBe(0);
    await page.goto(`${web.base}/#/task/demo/${id}/task`);
    const markdown = page.getByTestId('markdown');
    await markdown.waitFor({ timeout: 5_000 });
    expect(await markdown.textContent()).toContain('<b>bold?</b>');
    expect(await markdown.locator('img, script, b, a[href^="javascript"]').count()).toBe(0);
    await page.getByTestId('task-summary').waitFor();
    expect(await page.getByTestId('task-summary').textContent()).toContain('<script>');
    expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  });

  it('creates a task from the form and cancels it with a confirmation, on a phone-sized screen too', async () => {
    box = await Sandbox.create();
    const other = await box.createTask(['chore/other', 'another task on the board', '--no-spawn']);
    web = await startWeb(box);
    browser = await BrowserSession.open({ width: 390, height: 844 });
    await browser.signIn(web);
    const { page } = browser;
    await page.getByTestId(`row-${other}`).waitFor();
    await browser.screenshot(SHOTS, 'web-board-390');
    await page.getByTestId('new-task').click();
    await page.getByTestId('create-summary').fill('made on the phone');
    await page.getByTestId('create-branch').fill('chore/phone');
    await page.getByTestId('create-status-reviewing').check();
    await page.getByTestId('create-submit').click();
    await page.getByTestId('task-page').waitFor({ timeout: 10_000 });
    const listed = JSON.parse((await box.orange(['task', 'list', '--json'])).stdout) as { tasks: Array<{ id: string; branch: string; status: string }> };
    const made = listed.tasks.find((t) => t.branch === 'chore/phone');
    expect(made?.status).toBe('reviewing');
    await page.getByTestId('action-cancel').click();
    await page.getByTestId('confirm').waitFor();
    await page.getByTestId('confirm-ok').click();
    await box.waitForStatus(made!.id, 'cancelled', 10_000);
    await expect.poll(() => page.getByTestId('message').getAttribute('data-kind'), { timeout: 10_000 }).toBe('ok');
    await browser.screenshot(SHOTS, 'web-task-390');
  });
});
