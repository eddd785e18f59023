import { OrangeError } from '@orange/core';
import { lastLine, type CommandResult } from './git.js';

/** What to do without gh, said after "install it or" / "run gh auth login or": it depends on what gh was for. */
export const MERGE_WITHOUT_GH = 'merge locally with orange task merge --local (m in the dashboard)';
export const ISSUE_WITHOUT_GH = 'create the task without --issue: orange task create <branch> "<summary>" --context "<the issue\'s text>"';

export const ghMissing = (instead: string): string => `gh (GitHub CLI) is not installed; install it or ${instead}`;
export const ghUnauthenticated = (instead: string): string => `gh (GitHub CLI) is not logged in; run gh auth login or ${instead}`;
export const GH_MISSING = ghMissing(MERGE_WITHOUT_GH);
export const GH_UNAUTHENTICATED = ghUnauthenticated(MERGE_WITHOUT_GH);

/** Runs the GitHub CLI; a missing binary or a missing login becomes one clear E_SCM sentence. */
export class GhCli {
  /** `instead`: what a person can do without gh, for the calls this runner makes (merging, by default). */
  constructor(
    private readonly bin: string,
    private readonly instead: string = MERGE_WITHOUT_GH,
  ) {}

  /** Runs `gh ...args` in `cwd`, throwing E_SCM only when gh is missing or not logged in. */
  async try(cwd: string, args: readonly string[]): Promise<CommandResult> {
    // Loaded on first use: execa costs ~100 ms of start-up, and most CLI calls start no process.
    const { execa } = await import('execa');
    const result = await execa(this.bin, [...args], {
      cwd,
      reject: false,
      stdin: 'ignore',
      env: { GH_PROMPT_DISABLED: '1', GH_NO_UPDATE_NOTIFIER: '1', NO_COLOR: '1' },
    });
    if ((result as { code?: string }).code === 'ENOENT') throw new OrangeError('E_SCM', ghMissing(this.instead), { unavailable: true });
    const stdout = String(result.stdout ?? '').trim();
    const stderr = String(result.stderr ?? '').trim();
    // gh exits 4 when a command needs authentication; older versions only say so on stderr.
    if (result.exitCode === 4 || /gh auth login|not logged in|authentication required|GH_TOKEN/i.test(stderr)) {
      throw new OrangeError('E_SCM', ghUnauthenticated(this.instead), { unavailable: true });
    }
    return { ok: result.exitCode === 0, stdout, stderr };
  }

  /** Runs `gh ...args`; any failure becomes E_SCM with `what` and gh's own last line. */
  async run(cwd: string, args: readonly string[], what: string): Promise<string> {
    const result = await this.try(cwd, args);
    if (!result.ok) throw new OrangeError('E_SCM', `${what} failed: ${lastLine(result.stderr || result.stdout)}`);
    return result.stdout;
  }
}
