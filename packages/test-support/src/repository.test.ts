import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { builtEntryUrl, orangeCli, pipelineAgent, repoRoot, scriptedAgent } from './repository.js';

describe('the repository paths', () => {
  it('name the root, the CLI entry and the scripted agents, which are sources (no build needed)', () => {
    expect(existsSync(`${repoRoot}/packages/test-support/package.json`)).toBe(true);
    expect(orangeCli).toBe(`${repoRoot}/packages/cli/bin/run.cjs`);
    expect(existsSync(orangeCli)).toBe(true);
    expect(existsSync(scriptedAgent) && existsSync(pipelineAgent)).toBe(true);
    expect(builtEntryUrl('plugins/tmux')).toBe(`file://${repoRoot}/plugins/tmux/dist/index.js`);
  });
});
