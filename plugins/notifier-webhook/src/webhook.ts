import { definePlugin, parsePluginOptions, type OrangePlugin } from '@orange/core';
import { z } from 'zod';
import { postJson } from './post-json.js';

/** Options shared by notifiers that post to a URL (webhook, slack). */
export const PostingOptionsSchema = z.object({
  /** Where to POST: http or https. */
  url: z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }),
  /** Per attempt, in milliseconds. */
  timeoutMs: z.number().int().positive().default(5000),
  /** Attempts after the first (on a network error, a timeout, a 5xx or a 429). */
  retries: z.number().int().min(0).max(10).default(2),
  /** First wait before a retry; doubled for each further one. */
  backoffMs: z.number().int().min(0).default(500),
});

const WebhookOptionsSchema = PostingOptionsSchema.extend({
  /** The notifier's name in `notifications.routes` (two webhooks need two names). */
  name: z.string().min(1).default('webhook'),
  /** Signs each body: `X-Orange-Signature-256: sha256=<hex HMAC-SHA256>`. */
  secret: z.string().min(1).optional(),
  /** Extra request headers (an API token, …). */
  headers: z.record(z.string(), z.string()).default({}),
}).strict();

export type WebhookOptions = z.input<typeof WebhookOptionsSchema>;

/**
 * A notifier that POSTs each notification, exactly as Orange builds it, as a JSON body
 * (docs/notifications.md), optionally signed, with a timeout and retries with backoff.
 */
export function webhook(options: WebhookOptions): OrangePlugin {
  const parsed = parsePluginOptions('webhook', WebhookOptionsSchema, options);
  return definePlugin({
    name: parsed.name,
    apply(orange) {
      orange.notifications.register({
        name: parsed.name,
        async send(notification, { signal }) {
          await postJson(parsed.url, JSON.stringify(notification), {
            ...parsed,
            headers: { ...parsed.headers, 'x-orange-event': notification.event, 'x-orange-priority': notification.priority },
            signal,
          });
        },
      });
    },
  });
}
