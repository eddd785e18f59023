import { execa } from 'execa';

/** The program that opens a URL here: `$BROWSER` when set (one program, no arguments), else the platform's opener. */
export function urlOpener(platform: NodeJS.Platform = process.platform, env: NodeJS.ProcessEnv = process.env): string {
  const browser = env.BROWSER?.trim();
  if (browser) return browser;
  if (platform === 'darwin') return 'open';
  if (platform === 'win32') return 'explorer.exe';
  return 'xdg-open';
}

/**
 * Opens an http(s) URL in the browser and says what happened, in one line for the status bar.
 * When nothing can open it (no opener, no display over ssh), the line is the URL itself, so it can
 * still be copied. The opener's output is discarded: it must not draw over the dashboard.
 */
export async function openUrl(url: string, opener: string = urlOpener()): Promise<string> {
  // Only a web address goes to the opener: a pr_url like `file:///…` or `--help` would be run or parsed.
  if (!/^https?:\/\/[^\s]+$/.test(url)) return `not a web address, not opened: ${url}`;
  const result = await execa(opener, [url], { stdio: 'ignore', reject: false, timeout: 10_000, detached: false });
  if (result.exitCode === 0) return `opened ${url}`;
  const why = result.failed && result.exitCode === undefined ? `no ${opener} to open it with` : `${opener} failed (exit ${String(result.exitCode)})`;
  return `${url} (${why})`;
}
