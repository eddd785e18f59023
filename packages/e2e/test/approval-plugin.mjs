// A team's rule, as a plugin in their own repository would write it: a task reaches done only once
// a person has put an APPROVED file in its worktree. A veto: it runs before any merge touches git.
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export function approval() {
  return {
    name: 'approval',
    apply(orange) {
      orange.hooks.beforeTransition.tapPromise('approval', async ({ task, to }) => {
        if (to !== 'done') return undefined;
        const workspace = task.meta.workspace;
        return workspace && existsSync(join(workspace, 'APPROVED')) ? undefined : 'not approved: a person puts APPROVED in the worktree first';
      });
    },
  };
}
