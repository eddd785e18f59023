import { isOrangeError, type AgentRole, type RuntimeSnapshot, type SweepEvent, type TaskMeta } from '@orange/core';
import { LABELS } from './container-command.js';
import { docker } from './engine.js';
import type { DockerSettings } from './options.js';

interface Container {
  readonly id: string;
  readonly name: string;
  readonly state: string;
  readonly project: string;
  readonly task: string;
  readonly role: string;
}

const FORMAT = ['{{.ID}}', '{{.Names}}', '{{.State}}', `{{.Label "${LABELS.project}"}}`, `{{.Label "${LABELS.task}"}}`, `{{.Label "${LABELS.role}"}}`].join('\t');

/**
 * Containers of this Orange home that no agent owns any more: stopped ones, those of a task that
 * is gone, and an agent's whose tmux window is gone (its runner was killed before it could remove
 * it). A headless run's container of a live task is left alone: its pipeline run owns it.
 */
export async function sweepContainers(event: SweepEvent, settings: DockerSettings): Promise<void> {
  const { orange } = event;
  let containers: Container[];
  try {
    const listed = await docker(settings.docker, ['ps', '--all', '--no-trunc', '--filter', `label=${LABELS.home}=${orange.paths.home}`, '--format', FORMAT], 'cannot list containers');
    containers = listed.stdout
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => {
        const [id = '', name = '', state = '', project = '', task = '', role = ''] = line.split('\t');
        return { id, name, state, project, task, role };
      });
  } catch (error) {
    if (!isOrangeError(error)) throw error;
    event.found.push(`${error.message} (the docker runtime's leftovers were not looked for)`);
    return;
  }
  let snapshot: RuntimeSnapshot | null = null;
  for (const container of containers) {
    if (event.project !== undefined && container.project !== event.project) continue;
    const why = await leftover(container, async (meta, role) => {
      snapshot ??= await orange.slot('runtime').snapshot();
      return snapshot.isAlive(meta, role);
    }, event);
    if (why === null) continue;
    const what = `container ${container.name} (task ${container.task}${container.role ? `, ${container.role}` : ''}) ${why}`;
    if (!event.remove) {
      event.found.push(`${what}; orange workspace gc removes it`);
      continue;
    }
    try {
      await docker(settings.docker, ['rm', '--force', container.id], `cannot remove container ${container.name}`);
      event.found.push(`removed ${what}`);
    } catch (error) {
      if (!isOrangeError(error)) throw error;
      event.found.push(error.message);
    }
  }
}

async function leftover(container: Container, alive: (meta: TaskMeta, role: AgentRole) => Promise<boolean>, event: SweepEvent): Promise<string | null> {
  if (container.state !== 'running') return `is ${container.state || 'not running'}`;
  const meta = await event.orange.store.read(container.project, container.task).then(
    (task) => task.meta,
    () => null,
  );
  if (meta === null) return 'belongs to a task that is gone';
  if (container.role === 'worker' || container.role === 'reviewer') {
    return (await alive(meta, container.role)) ? null : `runs with no ${container.role} window in tmux`;
  }
  return null;
}
