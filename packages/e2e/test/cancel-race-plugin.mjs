// A test plugin: when a person's move takes a pipeline task to `stopped` (a cancel), it lets the
// phase in progress finish (creates `release`, which the scripted headless agent waits for) and,
// still holding the task, waits until the run's log is written: the driver then has the run's
// cost in hand while the cancel holds the lock it needs to record it.
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function cancelRace({ release }) {
  return {
    name: 'cancel-race',
    apply(orange) {
      orange.hooks.beforeTransition.tapPromise('cancel-race', async (event) => {
        if (event.to !== 'stopped') return undefined;
        writeFileSync(release, 'go\n');
        const runs = join(orange.paths.taskDir(event.task.meta.project, event.task.meta.id), 'runs');
        const deadline = Date.now() + 15_000;
        while (Date.now() < deadline) {
          const names = existsSync(runs) ? readdirSync(runs) : [];
          if (names.some((name) => name.endsWith('-fix.log'))) break;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        return undefined;
      });
    },
  };
}
