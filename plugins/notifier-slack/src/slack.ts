import { definePlugin, parsePluginOptions, type OrangePlugin } from '@orange/core';
import { PostingOptionsSchema, postJson } from '@orange/notifier-webhook';
import { z } from 'zod';
import { slackMessage } from './slack-message.js';

const SlackOptionsSchema = PostingOptionsSchema.extend({
  /** The notifier's name in `notifications.routes`. */
  name: z.string().min(1).default('slack'),
}).strict();

export type SlackOptions = z.input<typeof SlackOptionsSchema>;

/** A notifier posting to a Slack incoming webhook (`url`), with the webhook notifier's timeout and retries. */
export function slack(options: SlackOptions): OrangePlugin {
  const parsed = parsePluginOptions('slack', SlackOptionsSchema, options);
  return definePlugin({
    name: parsed.name,
    apply(orange) {
      orange.notifications.register({
        name: parsed.name,
        async send(notification, { signal }) {
          await postJson(parsed.url, JSON.stringify(slackMessage(notification)), { ...parsed, signal });
        },
      });
    },
  });
}
