import { createHmac } from 'node:crypto';
import { httpReceiver, type HttpReceiver } from '@orange/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { orangeBox, type OrangeBox } from '../test/orange-box.js';
import { postJson, redact, webhook } from './index.js';

let box: OrangeBox | undefined;
let server: HttpReceiver | undefined;
afterEach(async () => {
  await box?.cleanup();
  await server?.close();
  box = undefined;
  server = undefined;
});

describe('the webhook notifier', () => {
  it('POSTs the notification as its JSON body when a task goes to stuck, signed with HMAC-SHA256', async () => {
    server = await httpReceiver();
    box = await orangeBox([webhook({ url: server.url, secret: 's3cret' })]);
    const stuck = await box.task('working', 'Fix the flaky date test');
    await box.orange.engine.transition(stuck, 'stuck', { reason: 'review failed twice' });
    const [request] = await server.received(1);
    await box.orange.notifications.settle();
    expect(server.requests, 'only the stuck task raised a notification').toHaveLength(1);
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/hooks/orange-secret-path');
    expect(request?.headers).toMatchObject({
      'content-type': 'application/json',
      'x-orange-event': 'status.changed',
      'x-orange-priority': 'urgent',
      'x-orange-delivery': expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    const expected = `sha256=${createHmac('sha256', 's3cret').update(request?.body ?? '').digest('hex')}`;
    expect(request?.headers['x-orange-signature-256']).toBe(expected);
    const body = JSON.parse(request?.body ?? '{}') as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(['event', 'priority', 'title', 'reason', 'task', 'from', 'to', 'timestamp']);
    expect(body).toMatchObject({
      event: 'status.changed',
      priority: 'urgent',
      title: 'Stuck: Fix the flaky date test',
      reason: 'review failed twice',
      task: { id: stuck.id, project: 'app', branch: 'feature/login', summary: 'Fix the flaky date test', status: 'stuck', pr_url: null, attach: `orange task attach ${stuck.id}` },
      from: 'working',
      to: 'stuck',
    });
    // The closing note of issue 13 quotes one body exactly as sent.
    if (process.env.ORANGE_SHOW_BODIES === '1') process.stdout.write(`webhook body: ${request?.body}\n`);
  });

  it('sends no signature header without a secret', async () => {
    server = await httpReceiver();
    box = await orangeBox([webhook({ url: server.url })]);
    await box.orange.engine.transition(await box.task('working'), 'stuck');
    const [request] = await server.received(1);
    expect(request?.headers['x-orange-signature-256']).toBeUndefined();
  });

  it('retries after a 500 with the same delivery id, and stops at the first 2xx', async () => {
    server = await httpReceiver([500, 503, 200]);
    const result = await postJson(server.url, '{"n":1}', { timeoutMs: 2000, retries: 3, backoffMs: 10 });
    expect(result).toEqual({ status: 200, attempts: 3 });
    expect(server.requests).toHaveLength(3);
    expect(new Set(server.requests.map((r) => r.headers['x-orange-delivery'])).size).toBe(1);
    expect(server.requests.every((r) => r.body === '{"n":1}')).toBe(true);
  });

  it('retries a request that outlives its timeout', async () => {
    server = await httpReceiver(['hang', 200]);
    const started = performance.now();
    const result = await postJson(server.url, '{}', { timeoutMs: 200, retries: 1, backoffMs: 0 });
    expect(result).toEqual({ status: 200, attempts: 2 });
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
  });

  it('gives up after its retries with the last answer, and does not retry a 4xx', async () => {
    server = await httpReceiver([500, 500, 500]);
    await expect(postJson(server.url, '{}', { timeoutMs: 2000, retries: 2, backoffMs: 0 })).rejects.toThrow(/answered 500 \(after 3 attempts\)$/);
    await server.close();
    server = await httpReceiver([404, 200]);
    await expect(postJson(server.url, '{}', { timeoutMs: 2000, retries: 2, backoffMs: 0 })).rejects.toThrow(/answered 404 \(after 1 attempt\)$/);
    expect(server.requests).toHaveLength(1);
  });

  it('never shows the URL path (a webhook secret) in errors', async () => {
    server = await httpReceiver([500]);
    const error = await postJson(server.url, '{}', { timeoutMs: 2000, retries: 0, backoffMs: 0 }).catch((e: Error) => e);
    expect(String(error)).not.toContain('orange-secret-path');
    expect(redact(server.url)).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/…$/);
  });

  it('is cut off at the notification time limit, logged, while the transition went on at once', async () => {
    server = await httpReceiver(['hang', 'hang', 'hang']);
    box = await orangeBox([webhook({ url: server.url, timeoutMs: 60_000, retries: 2 })], { notifications: { timeoutMs: 500 } });
    const ref = await box.task('working');
    const started = performance.now();
    const result = await box.orange.engine.transition(ref, 'stuck');
    expect(result.task.meta.status).toBe('stuck');
    await box.orange.notifications.settle();
    const elapsed = performance.now() - started;
    expect(elapsed, `delivery ended after ${elapsed} ms`).toBeLessThan(5000);
    expect(await box.log()).toContainEqual(expect.objectContaining({ msg: 'notifier failed', notifier: 'webhook', error: 'notifier webhook did not finish within 500 ms' }));
  });

  it('refuses bad options naming the plugin and the field', () => {
    expect(() => webhook({ url: 'ftp://example.com/x' })).toThrow('plugin webhook: option "url" must be an http or https URL');
    expect(() => webhook({ url: 'http://127.0.0.1/x', retries: -1 })).toThrow(/plugin webhook: option "retries"/);
    expect(() => webhook({ url: 'http://127.0.0.1/x', colour: 'red' } as never)).toThrow('plugin webhook: unknown option "colour"');
  });
});
