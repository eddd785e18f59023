import type { OrangePlugin } from '@orange/core';
import { github } from '@orange/plugin-github';
import { reactions } from '@orange/plugin-reactions';
import { claude } from '@orange/harness-claude';
import { codex } from '@orange/harness-codex';
import { command } from '@orange/harness-command';
import { pipeline } from '@orange/plugin-pipeline';
import { gemini } from '@orange/harness-gemini';
import { opencode } from '@orange/harness-opencode';
import { pi } from '@orange/harness-pi';
import { tmux } from '@orange/plugin-tmux';
import { worktreePool } from '@orange/plugin-worktree-pool';

/**
 * What Orange runs on when the config does not say `defaults: false`: tmux, the worktree pool,
 * the harnesses (claude, codex, pi, opencode, gemini, command — the first installed one is used),
 * GitHub, the pull request reactions (docs/reactions.md), and the pipeline workflow's actions and gates.
 * A config plugin with the same name replaces the built-in one.
 */
export function defaultPlugins(): OrangePlugin[] {
  return [tmux(), worktreePool(), claude(), codex(), pi(), opencode(), gemini(), command(), github(), reactions(), pipeline()];
}
