import { GIT_SAFETY_ARGS, OrangeError, quickRun } from '@orange/core';

export interface CommandResult {
  readonly ok: boolean;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs git with an argument array (`quickRun`: merges run several per task); a missing git binary is a clear E_SCM, a failed command is a result. */
export class Git {
  constructor(private readonly bin: string) {}

  /** Runs `git -C dir ...args` and reports the outcome without throwing for a non-zero exit. */
  async try(dir: string, args: readonly string[]): Promise<CommandResult> {
    // A remote that wants credentials must fail, not wait for a password nobody will type.
    const result = await quickRun(this.bin, [...GIT_SAFETY_ARGS, '-C', dir, ...args], { env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } });
    if (result.error?.code === 'ENOENT') throw new OrangeError('E_SCM', `git is not installed (looked for "${this.bin}")`);
    return { ok: result.exitCode === 0, stdout: result.stdout.trim(), stderr: (result.stderr || result.error?.message || '').trim() };
  }

  /** Runs `git -C dir ...args`; a failure becomes E_SCM with `what` and git's own last line. */
  async run(dir: string, args: readonly string[], what: string): Promise<string> {
    const result = await this.try(dir, args);
    if (!result.ok) throw new OrangeError('E_SCM', `${what} failed: ${lastLine(result.stderr || result.stdout)}`);
    return result.stdout;
  }

  /** True when `ref` names a commit in the repository at `dir`. */
  async hasRef(dir: string, ref: string): Promise<boolean> {
    return (await this.try(dir, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`])).ok;
  }
}

/** The most telling line of a tool's output (git and gh put the reason last). */
export function lastLine(text: string): string {
  const lines = text.split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('hint:'));
  return (lines.at(-1) ?? 'no output').replace(/^(fatal|error): /, '');
}
