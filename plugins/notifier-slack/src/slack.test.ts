import { httpReceiver, type HttpReceiver } from '@orange/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { orangeBox, type OrangeBox } from '../../notifier-webhook/test/orange-box.js';
import { slack, slackMessage } from './index.js';

let box: OrangeBox | undefined;
let server: HttpReceiver | undefined;
afterEach(async () => {
  await box?.cleanup();
  await server?.close();
  box = undefined;
  server = undefined;
});

describe('the slack notifier', () => {
  it('posts an incoming-webhook message with the task, the status move, the reason and the attach line', async () => {
    server = await httpReceiver();
    box = await orangeBox([slack({ url: server.url })]);
    const ref = await box.task('working', 'Fix the flaky date test');
    await box.orange.engine.transition(ref, 'stuck', { reason: 'review failed twice' });
    const [request] = await server.received(1);
    expect(request?.headers['content-type']).toBe('application/json');
    const body = JSON.parse(request?.body ?? '{}');
    expect(body).toEqual({
      text: '[urgent] Stuck: Fix the flaky date test',
      blocks: [
        { type: 'section', text: { type: 'mrkdwn', text: '*:red_circle: URGENT* · Stuck: Fix the flaky date test' } },
        {
          type: 'section',
          fields: [
            { type: 'mrkdwn', text: `*Task*\n\`${ref.id}\` · app · \`feature/login\`\nFix the flaky date test` },
            { type: 'mrkdwn', text: '*Status*\nworking → stuck' },
          ],
        },
        { type: 'section', text: { type: 'mrkdwn', text: '*Reason*\nreview failed twice' } },
        { type: 'context', elements: [{ type: 'mrkdwn', text: `Attach: \`orange task attach ${ref.id}\`` }] },
      ],
    });
    if (process.env.ORANGE_SHOW_BODIES === '1') process.stdout.write(`slack body: ${request?.body}\n`);
  });

  it('retries after a 500 like the webhook notifier', async () => {
    server = await httpReceiver([500, 200]);
    box = await orangeBox([slack({ url: server.url, backoffMs: 10 })]);
    await box.orange.engine.transition(await box.task('working'), 'stuck');
    await server.received(2);
    await box.orange.notifications.settle();
    expect(server.requests.map((r) => r.body)).toEqual([server.requests[0]?.body, server.requests[0]?.body]);
    expect(await box.log()).toContainEqual(expect.objectContaining({ msg: 'notification sent', notifier: 'slack' }));
  });

  it('escapes what Slack reads as markup, so a summary cannot ping @channel or forge a link', () => {
    const message = slackMessage({
      event: 'status.changed',
      priority: 'info',
      title: 'Done: <!channel> & <http://evil|click>',
      reason: null,
      task: { id: 'T', project: 'app', branch: 'b`x', summary: '<!here>', status: 'done', pr_url: null, attach: 'tmux attach -t `x`' },
      from: 'reviewing',
      to: 'done',
      timestamp: '2026-01-01T00:00:00.000Z',
    });
    const text = JSON.stringify(message);
    expect(text).not.toMatch(/<!channel>|<!here>|<http/);
    expect(text).toContain('&lt;!channel&gt; &amp; &lt;http://evil|click&gt;');
    expect(text).toContain("`b'x`");
  });

  it('refuses a missing url naming the plugin and the field', () => {
    expect(() => slack({} as never)).toThrow(/plugin slack: option "url"/);
  });
});
