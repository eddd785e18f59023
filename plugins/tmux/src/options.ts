import { parsePluginOptions, TRANSCRIPT_ROTATE_BYTES } from '@orange/core';
import { z } from 'zod';

/** Options of the tmux plugin. */
export const TmuxOptionsSchema = z
  .object({
    /** tmux server socket name (`tmux -L`); default `$ORANGE_TMUX_SOCKET`, else tmux's default server. */
    socketName: z.string().min(1).regex(/^[A-Za-z0-9._-]+$/, 'must be letters, digits, ".", "_" or "-"').optional(),
    /** The tmux executable. */
    tmuxBin: z.string().min(1).default('tmux'),
    /** Pause between typing a notification and pressing Enter (TUIs treat instant Enter as part of a paste). */
    submitDelayMs: z.number().int().nonnegative().max(5000).default(150),
    /** Keep each agent's terminal output under the task's `logs/` (tmux pipe-pane). */
    transcripts: z.boolean().default(true),
    /** Bytes of a transcript before it is rotated to `.1` (so one spawn keeps at most twice this). */
    transcriptMaxBytes: z.number().int().min(4096).max(1024 * 1024 * 1024).default(TRANSCRIPT_ROTATE_BYTES),
    /**
     * What an agent's `orange` is: `perl`, a small Perl client of the gateway (the full CLI for what
     * the gateway does not answer), where a perl with its socket module is found, else Node; `node`,
     * always the Node CLI.
     */
    agentClient: z.enum(['perl', 'node']).default('perl'),
  })
  .strict();

export type TmuxOptionsInput = z.input<typeof TmuxOptionsSchema>;
export type TmuxOptions = z.output<typeof TmuxOptionsSchema>;

/** Validates the options and fills the socket from the environment when not given. */
export function parseTmuxOptions(options: unknown, env: NodeJS.ProcessEnv = process.env): TmuxOptions {
  const parsed = parsePluginOptions('tmux', TmuxOptionsSchema, options);
  const fromEnv = env.ORANGE_TMUX_SOCKET?.trim();
  return { ...parsed, socketName: parsed.socketName ?? (fromEnv ? fromEnv : undefined) };
}
