import { definePlugin, findExecutable, parsePluginOptions, type Notification, type NotificationPriority, type OrangePlugin } from '@orange/core';
import { z } from 'zod';

const DesktopOptionsSchema = z
  .object({
    /** The notifier's name in `notifications.routes`. */
    name: z.string().min(1).default('desktop'),
    /** notify-send on Linux (and other Unix desktops). */
    notifySendBin: z.string().min(1).default('notify-send'),
    /** osascript on macOS. */
    osascriptBin: z.string().min(1).default('osascript'),
    /** The platform to notify on (default: this machine's). */
    platform: z.string().min(1).optional(),
  })
  .strict();

export type DesktopOptions = z.input<typeof DesktopOptionsSchema>;

const URGENCY: Readonly<Record<NotificationPriority, string>> = { urgent: 'critical', action: 'normal', warning: 'normal', info: 'low' };

// The text is passed as arguments to a fixed script, never spliced into it: a summary cannot run AppleScript.
const APPLESCRIPT = ['on run argv', 'display notification (item 2 of argv) with title (item 1 of argv)', 'end run'];

/** The notification's second line and beyond: where, what moved, why, how to look. */
export function desktopBody(n: Notification): string {
  const move = n.from && n.to ? `${n.from} → ${n.to}` : n.task.status;
  return [`${n.task.project} · ${n.task.branch}: ${move}`, ...(n.reason ? [n.reason] : []), n.task.attach].join('\n');
}

/** The command (argv) that shows `n` on `platform`, or null when this platform has no notifier. */
export function desktopCommand(n: Notification, platform: string, bins: { notifySend: string; osascript: string }): string[] | null {
  const title = `Orange: ${n.title}`;
  if (platform === 'darwin') return [bins.osascript, ...APPLESCRIPT.flatMap((line) => ['-e', line]), title, desktopBody(n)];
  if (platform === 'win32') return null;
  return [bins.notifySend, '--app-name=Orange', `--urgency=${URGENCY[n.priority]}`, '--', title, bodyMarkupEscaped(desktopBody(n))];
}

/**
 * Notification servers that support body markup (GNOME, KDE, dunst) read the body as a subset of
 * HTML: a reason such as `a < b` would hide the rest of it, so the three markup characters are
 * sent as entities (servers without markup show the text as given, per the specification).
 */
function bodyMarkupEscaped(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/**
 * A notifier for the desktop: notify-send on Linux, osascript on macOS, run as an argument array.
 * Where neither exists (a server, CI) it silently does nothing.
 */
export function desktop(options: DesktopOptions = {}): OrangePlugin {
  const parsed = parsePluginOptions('desktop', DesktopOptionsSchema, options);
  return definePlugin({
    name: parsed.name,
    apply(orange) {
      const log = orange.log.child('desktop');
      orange.notifications.register({
        name: parsed.name,
        async send(notification, { signal }) {
          const argv = desktopCommand(notification, parsed.platform ?? process.platform, { notifySend: parsed.notifySendBin, osascript: parsed.osascriptBin });
          const bin = argv?.[0] === undefined ? null : findExecutable(argv[0]);
          if (!argv || bin === null) {
            log.debug('no desktop notifier on this machine; skipped', { event: notification.event });
            return;
          }
          // Loaded on first use: execa costs ~100 ms of start-up.
          const { execa } = await import('execa');
          const result = await execa(bin, argv.slice(1), { reject: false, stdin: 'ignore', cancelSignal: signal });
          if (result.exitCode !== 0) throw new Error(`${argv[0]} exited ${result.exitCode ?? 'abnormally'}: ${String(result.stderr ?? '').trim().split('\n').at(-1) ?? ''}`);
        },
      });
    },
  });
}
