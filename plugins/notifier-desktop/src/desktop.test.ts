import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { orangeBox, type OrangeBox } from '../../notifier-webhook/test/orange-box.js';
import { desktop } from './index.js';

let box: OrangeBox | undefined;
let dir: string | undefined;
afterEach(async () => {
  await box?.cleanup();
  if (dir) await rm(dir, { recursive: true, force: true });
  box = undefined;
  dir = undefined;
});

/** A stand-in notifier executable that writes its argv (one JSON line per call) to `calls.jsonl`. */
async function standIn(name: string, exitCode = 0): Promise<{ bin: string; calls: () => Promise<string[][]> }> {
  dir ??= await mkdtemp(join(tmpdir(), 'orange-desktop-'));
  const bin = join(dir, name);
  const log = join(dir, 'calls.jsonl');
  await writeFile(bin, `#!${process.execPath}\nrequire('node:fs').appendFileSync(${JSON.stringify(log)}, JSON.stringify(process.argv.slice(2)) + '\\n');\nprocess.stderr.write('no display\\n');\nprocess.exit(${exitCode});\n`);
  await chmod(bin, 0o755);
  return { bin, calls: async () => (await readFile(log, 'utf8').catch(() => '')).trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as string[]) };
}

describe('the desktop notifier', () => {
  it('runs notify-send on Linux with the urgency, the title and the body as separate arguments', async () => {
    const notifySend = await standIn('notify-send');
    box = await orangeBox([desktop({ platform: 'linux', notifySendBin: notifySend.bin })]);
    const ref = await box.task('working', 'Fix $(rm -rf ~) `now`');
    await box.orange.engine.transition(ref, 'stuck', { reason: 'review failed twice: <b> & <i> tags' });
    await box.orange.notifications.settle();
    expect(await notifySend.calls()).toEqual([
      [
        '--app-name=Orange',
        '--urgency=critical',
        '--',
        'Orange: Stuck: Fix $(rm -rf ~) `now`',
        // The body is markup to most notification servers; the title is plain text.
        `app · feature/login: working → stuck\nreview failed twice: &lt;b&gt; &amp; &lt;i&gt; tags\norange task attach ${ref.id}`,
      ],
    ]);
  });

  it('runs osascript on macOS with a fixed script and the text as its arguments', async () => {
    const osascript = await standIn('osascript');
    box = await orangeBox([desktop({ platform: 'darwin', osascriptBin: osascript.bin })]);
    const ref = await box.task('reviewing', 'Say "hi" & quit');
    await box.orange.engine.transition(ref, 'done');
    await box.orange.notifications.settle();
    expect(await osascript.calls()).toEqual([
      [
        '-e', 'on run argv',
        '-e', 'display notification (item 2 of argv) with title (item 1 of argv)',
        '-e', 'end run',
        'Orange: Done: Say "hi" & quit',
        `app · feature/login: reviewing → done\norange task attach ${ref.id}`,
      ],
    ]);
  });

  it('silently does nothing where no notifier is installed', async () => {
    box = await orangeBox([desktop({ platform: 'linux', notifySendBin: '/nonexistent/notify-send' })]);
    const result = await box.orange.engine.transition(await box.task('working'), 'stuck');
    await box.orange.notifications.settle();
    expect(result.task.meta.status).toBe('stuck');
    expect((await box.log()).filter((l) => l.level === 'error')).toEqual([]);
  });

  it('logs a notifier that fails, and the transition stands', async () => {
    const notifySend = await standIn('notify-send', 1);
    box = await orangeBox([desktop({ platform: 'linux', notifySendBin: notifySend.bin })]);
    const result = await box.orange.engine.transition(await box.task('working'), 'stuck');
    await box.orange.notifications.settle();
    expect(result.task.meta.status).toBe('stuck');
    expect(await box.log()).toContainEqual(expect.objectContaining({ msg: 'notifier failed', notifier: 'desktop', error: expect.stringContaining('exited 1: no display') }));
  });
});
