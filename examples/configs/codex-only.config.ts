// Only Codex: start from no built-in plugins and list exactly the ones to load.
import { defineConfig } from '@orange/core';
import { codex } from '@orange/harness-codex';
import { github } from '@orange/plugin-github';
import { tmux } from '@orange/plugin-tmux';
import { worktreePool } from '@orange/plugin-worktree-pool';

export default defineConfig({
  defaults: false,
  plugins: [tmux(), worktreePool(), codex({ model: 'gpt-5-codex' }), github()],
  harness: 'codex',
  reviewHarness: 'codex',
});
