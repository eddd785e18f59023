import { afterEach, describe, expect, it } from 'vitest';
import { httpReceiver, type HttpReceiver } from './http-receiver.js';

let receiver: HttpReceiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

describe('httpReceiver', () => {
  it('records every request on 127.0.0.1 and answers each as told', async () => {
    receiver = await httpReceiver([500]);
    expect(receiver.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
    const post = (body: string) => fetch(receiver!.url, { method: 'POST', body, headers: { 'x-test': 'yes' } }).then((r) => r.status);
    expect(await post('first')).toBe(500);
    expect(await post('second')).toBe(200);
    const [first, second] = await receiver.received(2);
    expect(first).toMatchObject({ method: 'POST', path: '/hooks/orange-secret-path', body: 'first', headers: { 'x-test': 'yes' } });
    expect(second?.body).toBe('second');
  });

  it("keeps a 'hang' request open until it closes", async () => {
    receiver = await httpReceiver(['hang']);
    const answered = fetch(receiver.url, { method: 'POST', body: 'held' }).then(() => 'answered', () => 'dropped');
    await receiver.received(1);
    await receiver.close();
    receiver = undefined;
    expect(await answered).toBe('dropped');
  });

  it("answers the requests it holds open ('hang') when released, and the others at once meanwhile", async () => {
    receiver = await httpReceiver(['hang']);
    const sentAt = Date.now();
    const held = fetch(receiver.url, { method: 'POST', body: 'held' }).then((r) => ({ status: r.status, at: Date.now() }));
    const [first] = await receiver.received(1);
    expect(first!.at).toBeGreaterThanOrEqual(sentAt);
    expect((await fetch(receiver.url, { method: 'POST', body: 'next' })).status).toBe(200);
    const releasedAt = Date.now();
    receiver.release();
    const answer = await held;
    expect(answer.status).toBe(200);
    expect(answer.at).toBeGreaterThanOrEqual(releasedAt);
  });
});
