// Different agents for different roles: opencode works, the Gemini CLI reviews, pi stays
// available for tasks created with --harness pi. The built-ins are kept (defaults on); listing
// a harness again only changes its options.
import { defineConfig } from '@orange/core';
import { gemini } from '@orange/harness-gemini';
import { opencode } from '@orange/harness-opencode';
import { pi } from '@orange/harness-pi';

export default defineConfig({
  plugins: [
    opencode({ model: 'anthropic/claude-sonnet-4-5' }),
    gemini({ model: 'gemini-2.5-pro' }),
    pi({ provider: 'anthropic', model: 'claude-sonnet-4-5' }),
  ],
  harness: 'opencode',
  reviewHarness: 'gemini',
});
