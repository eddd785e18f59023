import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Where the built exit wrapper is: beside this module in `dist/`, or — when this module runs from
 * `src/` (tests) — in the package's `dist/`.
 */
export function agentWrapperPath(): string {
  const sibling = fileURLToPath(new URL('./agent-wrapper.js', import.meta.url));
  if (existsSync(sibling)) return sibling;
  return fileURLToPath(new URL('../dist/agent-wrapper.js', import.meta.url));
}
