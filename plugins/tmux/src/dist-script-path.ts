import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Where a built script of this package is: beside this module in `dist/`, or — when this module
 * runs from `src/` (tests) — in the package's `dist/`.
 */
function distScriptPath(file: string): string {
  const sibling = fileURLToPath(new URL(`./${file}`, import.meta.url));
  if (existsSync(sibling)) return sibling;
  return fileURLToPath(new URL(`../dist/${file}`, import.meta.url));
}

/** The exit wrapper every agent runs in (`dist/agent-wrapper.cjs`). */
export function agentWrapperPath(): string {
  return distScriptPath('agent-wrapper.cjs');
}

/** The detached process that kills the caller's own windows once the caller has exited (`dist/window-reaper.js`). */
export function windowReaperPath(): string {
  return distScriptPath('window-reaper.js');
}

