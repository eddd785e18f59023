import { spawnSync } from 'node:child_process';
import type { TestContext } from 'vitest';

/** User nobody: how a test running as root (CI's user) checks what root's rights would hide. */
export const NOBODY = { uid: 65534, gid: 65534 } as const;

/**
 * Ends a test that cannot run on this machine: skipped, saying why — except in CI (`CI` set), where
 * a test that cannot run fails, saying why (docs/testing.md: nothing skips silently in CI).
 */
export function cannotRunHere(context: TestContext, why: string): never {
  if (process.env.CI) throw new Error(`CI: this test must run, but ${why}`);
  console.warn(`skipped "${context.task.name}": ${why}`);
  return context.skip(why);
}

/**
 * Null when user nobody can read `file`, else why not: code run as nobody needs the repository, and
 * a clone in a folder only its owner may enter (as `mktemp -d` makes them) is out of its reach.
 */
export function nobodyCannotRead(file: string): string | null {
  const probe = spawnSync(process.execPath, ['-e', 'require("node:fs").accessSync(process.argv[1], 4)', file], { ...NOBODY, cwd: '/', encoding: 'utf8' });
  if (probe.status === 0) return null;
  const reason = /\b(E[A-Z]+):/.exec(probe.stderr)?.[1] ?? probe.error?.message ?? `exit ${probe.status}`;
  return `user nobody cannot read ${file} (${reason}): a folder above it is closed to other users`;
}
