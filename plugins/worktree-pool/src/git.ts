import { OrangeError } from '@orange/core';

/** Outcome of a git call that is allowed to fail. */
export interface GitResult {
  readonly ok: boolean;
  readonly stdout: string;
  readonly stderr: string;
}

/** The one way this plugin runs git: `git -C <dir> <args…>` as an argument array. */
export class Git {
  constructor(readonly bin: string) {}

  /** Runs git in `dir`; failure is returned, not thrown. */
  async attempt(dir: string, args: readonly string[]): Promise<GitResult> {
    // Loaded on first use: execa costs ~100 ms of start-up, and most CLI calls start no process.
    const { execa } = await import('execa');
    const result = await execa(this.bin, ['-C', dir, ...args], {
      reject: false,
      // Never wait for a credential prompt: a background acquire has no terminal.
      env: { GIT_TERMINAL_PROMPT: '0' },
      stdin: 'ignore',
    });
    return {
      ok: result.exitCode === 0 && !result.failed,
      stdout: String(result.stdout ?? ''),
      stderr: String(result.stderr ?? '') || (result.failed && result.exitCode === undefined ? String(result.message) : ''),
    };
  }

  /** Runs git in `dir` and returns stdout; a failure becomes E_WORKSPACE naming the command and git's reason. */
  async run(dir: string, args: readonly string[]): Promise<string> {
    const result = await this.attempt(dir, args);
    if (!result.ok) {
      throw new OrangeError('E_WORKSPACE', `git ${args.join(' ')} failed in ${dir}: ${firstLine(result.stderr) || 'unknown error'}`, {
        dir,
        args: [...args],
      });
    }
    return result.stdout;
  }

  /** True when `ref` names an existing commit in `dir`. */
  async hasRef(dir: string, ref: string): Promise<boolean> {
    return (await this.attempt(dir, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`])).ok;
  }
}

function firstLine(text: string): string {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  // git puts the actual reason on a "fatal:" / "error:" line, often after hints.
  return (lines.find((l) => /^(fatal|error):/.test(l)) ?? lines[0] ?? '').replace(/^(fatal|error):\s*/, '');
}
