import { NotificationOutbox, OrangePaths, type Orange, type OutboxEntry } from '@orange/core';
import { OrangeCommand } from '../../base-command.js';

export default class NotificationsDeliver extends OrangeCommand {
  static override hidden = true;
  static override summary = 'Deliver the notifications waiting in $ORANGE_HOME/outbox, then exit (started by the CLI itself; see docs/notifications.md).';

  protected override notificationDelivery = 'in-process' as const;

  async run(): Promise<void> {
    await this.parse(NotificationsDeliver);
    // Often another deliverer took this one's entries already: then no config is loaded, nothing written.
    if ((await new NotificationOutbox(OrangePaths.fromEnv()).due()).length === 0) {
      this.emit({ delivered: 0 }, () => this.log('delivered 0 notifications'));
      return;
    }
    const orange = await this.orange();
    const here = process.cwd();
    // Each entry is routed by the config of the directory it was raised in (another repository
    // may route elsewhere); one whose config no longer loads is delivered with this one.
    const instances = new Map<string, Promise<Orange>>();
    const instanceFor = (entry: OutboxEntry): Promise<Orange> => {
      if (entry.cwd === here) return Promise.resolve(orange);
      let instance = instances.get(entry.cwd);
      if (!instance) {
        instance = this.orangeFor(entry.cwd).catch((error: unknown) => {
          orange.log.child('notifications').warn('config of an outbox entry did not load; delivering with this one', { cwd: entry.cwd, error: error instanceof Error ? error.message : String(error) });
          return orange;
        });
        instances.set(entry.cwd, instance);
      }
      return instance;
    };
    const delivered = await orange.notifications.deliverOutbox({ instanceFor });
    orange.log.child('notifications').debug('deliverer done', { delivered });
    this.emit({ delivered }, () => this.log(`delivered ${delivered} notification${delivered === 1 ? '' : 's'}`));
  }
}
