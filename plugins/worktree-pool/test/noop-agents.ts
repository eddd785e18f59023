import type { Harness, OrangePlugin } from '@orange/core';
import { recordingActions } from '@orange/test-support';

/** Actions the built-in workflows name that other plugins provide; here they do nothing but count. */
export const AGENT_ACTIONS = ['spawn_agent', 'spawn_reviewer', 'kill_session', 'kill_reviewer', 'notify_worker', 'delete_remote_branch'] as const;

/** A harness whose only role in these tests is to contribute an exclude pattern. */
export const fakeHarness: Harness = {
  name: 'fake',
  installed: async () => true,
  command: () => ({ argv: ['true'] }),
  excludes: ['.fake-harness/'],
};

/** Stands in for tmux and github: every agent action is a no-op recorded in `calls`. */
export function noopAgents(calls: string[] = []): OrangePlugin {
  return recordingActions({
    name: 'noop-agents',
    actions: AGENT_ACTIONS,
    calls,
    entry: (action, ctx) => `${action}:${ctx.task.meta.id}`,
    apply: (orange) => orange.registerHarness(fakeHarness),
  });
}
