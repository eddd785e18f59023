import { definePlugin, type ActionContext, type OrangePlugin } from '@orange/core';
import { killReviewerWindow, killTaskSession, type KillSetup } from './agent-kill.js';
import { spawnAgent, type SpawnSetup } from './agent-spawn.js';
import { parseTmuxOptions, type TmuxOptionsInput } from './options.js';
import { taskSession, WORKER_WINDOW, windowTarget } from './session-name.js';
import { TmuxClient } from './tmux-client.js';
import { TmuxRuntime } from './tmux-runtime.js';
import { workerNotice } from './worker-notice.js';
import { agentWrapperPath, windowReaperPath } from './dist-script-path.js';

const PLUGIN = 'tmux';

/**
 * The tmux runtime: one session per task, agents in windows, exits reported by a wrapper.
 * Provides `spawn_agent`, `spawn_reviewer`, `kill_session`, `kill_reviewer`, `notify_worker` and the runtime slot.
 */
export function tmux(options: TmuxOptionsInput = {}): OrangePlugin {
  const settings = parseTmuxOptions(options);
  return definePlugin({
    name: PLUGIN,
    apply(orange) {
      const client = new TmuxClient(settings.tmuxBin, settings.socketName);
      const setup: SpawnSetup = {
        client,
        socketName: settings.socketName,
        wrapperPath: agentWrapperPath(),
        transcripts: settings.transcripts ? { maxBytes: settings.transcriptMaxBytes } : null,
        agentClient: settings.agentClient,
      };
      const kills: KillSetup = { client, reaperPath: windowReaperPath() };
      const action = (name: string, fn: (ctx: ActionContext) => Promise<void>) => orange.hooks.actions.for(name).tapPromise(PLUGIN, fn);

      action('spawn_agent', async (ctx) => {
        await spawnAgent(ctx, 'worker', setup, ctx.cause === 'respawn');
      });
      action('spawn_reviewer', async (ctx) => {
        await spawnAgent(ctx, 'reviewer', setup, ctx.cause === 'respawn');
      });
      action('kill_session', (ctx) => killTaskSession(ctx, kills));
      action('kill_reviewer', (ctx) => killReviewerWindow(ctx, kills));
      action('notify_worker', async (ctx) => {
        const meta = ctx.task.meta;
        const session = taskSession(meta);
        const windows = await client.listWindows();
        if (!windows.some((w) => w.session === session && w.window === WORKER_WINDOW && !w.dead)) {
          // No worker to tell (it crashed, or the task was created at agent-review): start one on
          // demand where the new status gives a worker work (a prompt), not where a person takes over.
          const state = ctx.workflow.state(ctx.to);
          if (state?.agent === 'worker' && state.prompt !== undefined) await spawnAgent(ctx, 'worker', setup, true);
          else ctx.log.info('no worker to tell, and none needed', { task: meta.id, to: ctx.to });
          return;
        }
        await client.typeLine(windowTarget(session, WORKER_WINDOW), workerNotice(ctx.from, ctx.to, meta, { cause: ctx.cause, ...(ctx.reason ? { reason: ctx.reason } : {}) }), settings.submitDelayMs);
        await ctx.record({ type: 'worker.notified', session, from: ctx.from, to: ctx.to });
      });

      orange.provide('runtime', new TmuxRuntime(client, settings.submitDelayMs));
    },
  });
}
