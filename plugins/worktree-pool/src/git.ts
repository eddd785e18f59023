import { GIT_SAFETY_ARGS, OrangeError, quickRun } from '@orange/core';

/** Outcome of a git call that is allowed to fail. */
export interface GitResult {
  readonly ok: boolean;
  readonly stdout: string;
  readonly stderr: string;
}

/** The one way this plugin runs git: `git -C <dir> <args…>` as an argument array (`quickRun`: a fleet's moves make dozens per task). */
export class Git {
  constructor(readonly bin: string) {}

  /** Runs git in `dir`; failure is returned, not thrown. */
  async attempt(dir: string, args: readonly string[]): Promise<GitResult> {
    // Never wait for a credential prompt: a background acquire has no terminal.
    const result = await quickRun(this.bin, [...GIT_SAFETY_ARGS, '-C', dir, ...args], { env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } });
    return { ok: result.exitCode === 0, stdout: result.stdout, stderr: result.stderr || (result.error ? result.error.message : '') };
  }

  /** Runs git in `dir` and returns stdout; a failure becomes E_WORKSPACE naming the command and git's reason. */
  async run(dir: string, args: readonly string[]): Promise<string> {
    const result = await this.attempt(dir, args);
    if (!result.ok) throw gitFailure(dir, args, result);
    return result.stdout;
  }

  /** True when `ref` names an existing commit in `dir`. */
  async hasRef(dir: string, ref: string): Promise<boolean> {
    return (await this.attempt(dir, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`])).ok;
  }
}

/** The E_WORKSPACE error for a failed git command: the command, where, and git's own reason. */
export function gitFailure(dir: string, args: readonly string[], result: GitResult): OrangeError {
  return new OrangeError('E_WORKSPACE', `git ${args.join(' ')} failed in ${dir}: ${firstLine(result.stderr) || 'unknown error'}`, { dir, args: [...args] });
}

function firstLine(text: string): string {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  // git puts the actual reason on a "fatal:" / "error:" line, often after hints.
  return (lines.find((l) => /^(fatal|error):/.test(l)) ?? lines[0] ?? '').replace(/^(fatal|error):\s*/, '');
}
