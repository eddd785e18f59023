import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, chromiumPath, type RunningWeb } from './web-server.js';

/**
 * Why the browser tests cannot run here, or null when they can. In CI a missing Chromium is a
 * failure, not a skip (.ci/run installs Debian's).
 */
export function browserMissing(): string | null {
  if (chromiumPath()) return null;
  const why = 'no Chromium at /usr/bin/chromium (apt-get install chromium; .ci/run installs it)';
  if (process.env.CI) throw new Error(`CI: the browser tests must run, but there is ${why}`);
  return why;
}

/** A headless Chromium with one page per viewport, every console error and failed request kept for the failure message. */
export class BrowserSession {
  readonly problems: string[] = [];
  private constructor(
    private readonly browser: Browser,
    private readonly context: BrowserContext,
    readonly page: Page,
  ) {}

  static async open(viewport: { width: number; height: number } = { width: 1440, height: 900 }): Promise<BrowserSession> {
    const browser = await chromium.launch({ executablePath: chromiumPath() ?? undefined, args: CHROMIUM_ARGS, headless: true });
    const context = await browser.newContext({ viewport, deviceScaleFactor: 1 });
    const page = await context.newPage();
    const session = new BrowserSession(browser, context, page);
    page.on('pageerror', (error) => session.problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') session.problems.push(`console: ${message.text()}`);
    });
    return session;
  }

  /** Opens the printed URL (the token becomes the cookie) and waits for the live board. */
  async signIn(web: RunningWeb, hash = '#/'): Promise<void> {
    await this.page.goto(web.url);
    if (hash !== '#/') await this.page.goto(`${web.base}/${hash}`);
    await this.page.getByTestId('connection').and(this.page.locator('[data-state="live"]')).waitFor({ timeout: 15_000 });
  }

  /** A PNG of the page now, in `dir` (made if missing). */
  async screenshot(dir: string, name: string): Promise<string> {
    await mkdir(dir, { recursive: true });
    const path = join(dir, `${name}.png`);
    await this.page.screenshot({ path });
    return path;
  }

  async close(): Promise<void> {
    await this.context.close().catch(() => undefined);
    await this.browser.close();
  }
}
