import { appendFile, mkdir } from 'node:fs/promises';
import { dirname, isAbsolute, join } from 'node:path';
import { definePlugin, parsePluginOptions, type OrangePlugin } from '@orange/core';
import { z } from 'zod';

const FileNotifierOptionsSchema = z
  .object({
    /** File to append to; a relative path is under $ORANGE_HOME (agents run the CLI from their worktrees). */
    file: z.string().min(1).default('notifications.log'),
    /** Its name in `notifications.routes`. */
    name: z.string().min(1).default('file'),
  })
  .strict();

export type FileNotifierOptions = z.input<typeof FileNotifierOptionsSchema>;

/** A notifier: one line per notification (time, priority, title, how to attach) appended to a file. */
export function fileNotifier(options: FileNotifierOptions = {}): OrangePlugin {
  const { file, name } = parsePluginOptions('file-notifier', FileNotifierOptionsSchema, options);
  return definePlugin({
    name: 'file-notifier',
    apply(orange) {
      const target = isAbsolute(file) ? file : join(orange.paths.home, file);
      orange.notifications.register({
        name,
        // A local append is quick; a notifier that talks to a network passes `signal` on to stop at the time limit.
        async send(n) {
          await mkdir(dirname(target), { recursive: true });
          await appendFile(target, `${n.timestamp} [${n.priority}] ${n.title} — ${n.task.attach}\n`);
        },
      });
    },
  });
}
