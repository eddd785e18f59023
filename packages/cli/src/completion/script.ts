import { bashScript } from './bash.js';
import { fishScript } from './fish.js';
import type { CompletionSpec } from './spec.js';
import { zshScript } from './zsh.js';

/** The shells `orange completion` writes a script for. */
export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** The completion script for `shell`, generated from `spec`. */
export function completionScript(shell: Shell, spec: CompletionSpec): string {
  switch (shell) {
    case 'bash':
      return bashScript(spec);
    case 'zsh':
      return zshScript(spec);
    case 'fish':
      return fishScript(spec);
  }
}

/** The shell of a `$SHELL` path (`/usr/bin/zsh` → zsh), when it is one of SHELLS. */
export function shellOf(path: string | undefined): Shell | undefined {
  const name = (path ?? '').split('/').pop() ?? '';
  return (SHELLS as readonly string[]).includes(name) ? (name as Shell) : undefined;
}
