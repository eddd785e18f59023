export { webhook, PostingOptionsSchema, type WebhookOptions } from './webhook.js';
export { postJson, signBody, redact, type PostOptions, type PostResult } from './post-json.js';
