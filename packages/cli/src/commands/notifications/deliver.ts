import { OrangePaths, OutboxDeliverer } from '@orange/core';
import { OrangeCommand } from '../../command/base-command.js';

export default class NotificationsDeliver extends OrangeCommand {
  static override audience = 'reader' as const;
  static override hidden = true;
  static override summary = 'Deliver the notifications waiting in $ORANGE_HOME/outbox, then exit (started by the CLI itself; see docs/notifications.md).';

  protected override notificationDelivery = 'in-process' as const;

  async run(): Promise<void> {
    await this.parse(NotificationsDeliver);
    // The delivery lock comes first: often another deliverer took this one's entries already, and
    // then no config is loaded at all. Each entry is routed by the config of the project it was
    // raised in; this directory's config is loaded only when an entry needs it.
    const deliverer = new OutboxDeliverer(OrangePaths.fromEnv(), { own: () => this.orange(), load: (cwd) => this.orangeFor(cwd) });
    const delivered = await deliverer.deliver();
    this.emit({ delivered }, () => this.log(`delivered ${delivered} notification${delivered === 1 ? '' : 's'}`));
  }
}
