import type { AgentCommand, AgentCommandEvent } from '@orange/core';
import { CONTAINER_GATEWAY_DIR, CONTAINER_HOME } from './container-client.js';
import type { DockerSettings } from './options.js';
import type { BindMount } from './workspace-mounts.js';

/** Labels every container of Orange carries, so that `doctor` and `workspace gc` find them. */
export const LABELS = {
  home: 'orange.home',
  project: 'orange.project',
  task: 'orange.task',
  role: 'orange.role',
  phase: 'orange.phase',
  spawn: 'orange.spawn',
} as const;

/** What the host has for one agent's container, found before it starts. */
export interface ContainerSetup {
  readonly settings: DockerSettings;
  /** Orange's home on the host (a label: two homes on one engine never sweep each other's containers). */
  readonly home: string;
  /** The task's agent folder (TASK.md, result files), mounted read-write at its own path. */
  readonly agentDir: string;
  /** The folder holding the agents' socket, mounted at `/orange/gateway`. */
  readonly gatewayDir: string;
  /** The `orange` client written for this image, mounted at `/usr/local/bin/orange`. */
  readonly client: string;
  readonly workspace: readonly BindMount[];
  /** Node and the container runner (`dist/container-runner.cjs`) on the host. */
  readonly node: string;
  readonly runner: string;
  readonly user: string;
  /** A suffix that makes the container's name unique (the spawn id; a headless run's own). */
  readonly unique: string;
}

// Variables that describe the host or its terminal server, not the agent: not handed in.
const HOST_ONLY = new Set(['PATH', 'HOME', 'ORANGE_HOME', 'ORANGE_TMUX_SOCKET', 'TMUX', 'TMUX_PANE', 'ORANGE_CODE_CACHE_DIR']);

/** A `--mount` value; docker reads it as CSV, so a field with a comma is quoted. */
function mountFlag(mount: BindMount): string[] {
  const field = (key: string, value: string) => (value.includes(',') ? `"${key}=${value}"` : `${key}=${value}`);
  return ['--mount', ['type=bind', field('source', mount.source), field('target', mount.target), ...(mount.readonly ? ['readonly'] : [])].join(',')];
}

/** A container name docker accepts: `[a-zA-Z0-9][a-zA-Z0-9_.-]*`. */
export function containerName(parts: readonly string[]): string {
  return `orange-${parts.map((part) => part.replace(/[^a-zA-Z0-9_.-]+/g, '_')).join('-')}`.slice(0, 200);
}

/**
 * The agent's command, run in its own container: `docker run` under the container runner, with
 * the mounts and limits of `setup`. The environment stays the host's: every variable the command
 * sets (Orange's `ORANGE_*`, the agent's identity, the harness's own) and each one the config
 * names are handed in by name (`-e NAME`), so no value — a secret above all — is on a command line.
 */
export function containerCommand(command: AgentCommand, event: AgentCommandEvent, setup: ContainerSetup): AgentCommand {
  const { settings } = setup;
  const meta = event.task.meta;
  const terminal = event.run.kind === 'terminal';
  const who = event.run.kind === 'terminal' ? event.run.role : event.run.phase;
  const name = containerName([meta.project, meta.id, who, setup.unique]);
  const [entrypoint, ...args] = command.argv;
  const names = new Set([...Object.keys(command.env), ...settings.env, ...(terminal ? ['TERM'] : [])].filter((key) => !HOST_ONLY.has(key)));
  const mounts: BindMount[] = [
    ...setup.workspace,
    { source: setup.agentDir, target: setup.agentDir, readonly: false },
    { source: setup.gatewayDir, target: CONTAINER_GATEWAY_DIR, readonly: true },
    { source: setup.client, target: '/usr/local/bin/orange', readonly: true },
    ...settings.mounts,
  ];
  const run = [
    'run',
    '--rm',
    '--interactive',
    ...(terminal ? ['--tty'] : []),
    '--pull',
    'never',
    '--name',
    name,
    '--label', `${LABELS.home}=${setup.home}`,
    '--label', `${LABELS.project}=${meta.project}`,
    '--label', `${LABELS.task}=${meta.id}`,
    ...(event.run.kind === 'terminal' ? ['--label', `${LABELS.role}=${event.run.role}`, '--label', `${LABELS.spawn}=${event.run.spawnId}`] : ['--label', `${LABELS.phase}=${event.run.phase}`]),
    '--user', setup.user,
    '--cap-drop', 'ALL',
    '--security-opt', 'no-new-privileges',
    '--pids-limit', String(settings.pids),
    ...(settings.cpus === undefined ? [] : ['--cpus', String(settings.cpus)]),
    ...(settings.memory === undefined ? [] : ['--memory', settings.memory]),
    '--network', settings.network,
    '--workdir', command.cwd,
    ...mounts.flatMap(mountFlag),
    '--env', `ORANGE_HOME=${CONTAINER_HOME}`,
    '--env', `HOME=${settings.home}`,
    ...[...names].flatMap((key) => ['--env', key]),
    '--entrypoint', entrypoint ?? '',
    settings.image,
    ...args,
  ];
  return {
    argv: [setup.node, setup.runner, '--name', name, '--docker', settings.docker, '--', ...run],
    env: { ...command.env, ...Object.fromEntries(settings.env.filter((key) => process.env[key] !== undefined).map((key) => [key, process.env[key]!])) },
    cwd: command.cwd,
  };
}
