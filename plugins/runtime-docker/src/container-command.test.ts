import { TaskMetaSchema, type AgentCommandEvent, type Orange, type Task } from '@orange/core';
import { describe, expect, it } from 'vitest';
import { containerCommand, containerName, type ContainerSetup } from './container-command.js';
import { DockerOptionsSchema } from './options.js';

const meta = TaskMetaSchema.parse({
  id: 'V1StGXR8Z5jdHi6BmyT4a',
  project: 'web.app',
  branch: 'fix/login',
  status: 'working',
  created_at: '2026-11-27T00:00:00.000Z',
  updated_at: '2026-11-27T00:00:00.000Z',
});
const task: Task = { meta, body: '' };

function setup(options: Record<string, unknown> = {}): ContainerSetup {
  return {
    settings: DockerOptionsSchema.parse({ image: 'agents:1', ...options }),
    home: '/home/me/.orange',
    agentDir: '/home/me/.orange/tasks/web.app/V1StGXR8Z5jdHi6BmyT4a/agent',
    gatewayDir: '/home/me/.orange/gateway',
    client: '/home/me/.orange/run/docker/abc/orange',
    workspace: [{ source: '/w/web--1', target: '/w/web--1', readonly: false }],
    node: '/usr/bin/node',
    runner: '/opt/orange/container-runner.cjs',
    user: '1000:1000',
    unique: 'Qm2c8RfT1a',
  };
}

const terminal = { orange: {} as Orange, task, run: { kind: 'terminal', role: 'worker', spawnId: 'Qm2c8RfT1a', internal: false } } satisfies AgentCommandEvent;
const command = {
  argv: ['claude', '--print', 'do it'],
  env: { ORANGE_TASK_ID: meta.id, ORANGE_AGENT_SECRET: 's3cret-value', ORANGE_HOME: '/home/me/.orange', PATH: '/home/me/.orange/run/bin:/usr/bin', ORANGE_TMUX_SOCKET: 'orange' },
  cwd: '/w/web--1',
};

/** The arguments after `docker run` (the runner's own come first). */
function runArgs(argv: readonly string[]): string[] {
  return argv.slice(argv.indexOf('--') + 2);
}

describe('containerCommand', () => {
  it('runs the agent under the runner in docker run, its entrypoint the command and its arguments after the image', () => {
    const wrapped = containerCommand(command, terminal, setup());
    expect(wrapped.argv.slice(0, 7)).toEqual(['/usr/bin/node', '/opt/orange/container-runner.cjs', '--name', 'orange-web.app-V1StGXR8Z5jdHi6BmyT4a-worker-Qm2c8RfT1a', '--docker', 'docker', '--']);
    const run = runArgs(wrapped.argv);
    expect(run.slice(0, 4)).toEqual(['--rm', '--interactive', '--tty', '--pull']);
    expect(run.slice(run.indexOf('--entrypoint'))).toEqual(['--entrypoint', 'claude', 'agents:1', '--print', 'do it']);
    expect(wrapped.cwd).toBe('/w/web--1');
  });

  it('hands variables in by name only: no value of the environment is on the command line, Orange home and HOME are the container own', () => {
    const wrapped = containerCommand(command, terminal, setup({ env: ['ANTHROPIC_API_KEY'] }));
    const run = runArgs(wrapped.argv);
    const envs = run.flatMap((arg, i) => (run[i - 1] === '--env' ? [arg] : []));
    expect(envs).toEqual(['ORANGE_HOME=/orange', 'HOME=/tmp', 'ORANGE_TASK_ID', 'ORANGE_AGENT_SECRET', 'ANTHROPIC_API_KEY', 'TERM']);
    expect(wrapped.argv.join(' ')).not.toContain('s3cret-value');
    // The host's PATH and tmux server mean nothing inside.
    expect(envs.some((e) => e.startsWith('PATH') || e.startsWith('ORANGE_TMUX_SOCKET'))).toBe(false);
    // The docker client reads the values from its own environment: the command's, unchanged.
    expect(wrapped.env.ORANGE_AGENT_SECRET).toBe('s3cret-value');
  });

  it('labels the container with home, project, task, role and spawn, and applies the limits', () => {
    const run = runArgs(containerCommand(command, terminal, setup({ cpus: 2, memory: '4g', pids: 256, network: 'none' })).argv);
    const labels = run.flatMap((arg, i) => (run[i - 1] === '--label' ? [arg] : []));
    expect(labels).toEqual(['orange.home=/home/me/.orange', 'orange.project=web.app', `orange.task=${meta.id}`, 'orange.role=worker', 'orange.spawn=Qm2c8RfT1a']);
    const flag = (name: string) => run[run.indexOf(name) + 1];
    expect([flag('--cpus'), flag('--memory'), flag('--pids-limit'), flag('--network'), flag('--user'), flag('--cap-drop'), flag('--security-opt')]).toEqual(['2', '4g', '256', 'none', '1000:1000', 'ALL', 'no-new-privileges']);
  });

  it('mounts the workspace, the agent folder, the socket folder read-only and the client, then the configured mounts; a comma in a path is quoted', () => {
    const run = runArgs(containerCommand(command, terminal, setup({ mounts: [{ source: '/data/a,b', target: '/data' }] })).argv);
    const mounts = run.flatMap((arg, i) => (run[i - 1] === '--mount' ? [arg] : []));
    expect(mounts).toEqual([
      'type=bind,source=/w/web--1,target=/w/web--1',
      'type=bind,source=/home/me/.orange/tasks/web.app/V1StGXR8Z5jdHi6BmyT4a/agent,target=/home/me/.orange/tasks/web.app/V1StGXR8Z5jdHi6BmyT4a/agent',
      'type=bind,source=/home/me/.orange/gateway,target=/orange/gateway,readonly',
      'type=bind,source=/home/me/.orange/run/docker/abc/orange,target=/usr/local/bin/orange,readonly',
      'type=bind,"source=/data/a,b",target=/data,readonly',
    ]);
  });

  it('runs a headless run without a terminal, labelled with its phase', () => {
    const headless = { ...terminal, run: { kind: 'headless', phase: 'classify' } } satisfies AgentCommandEvent;
    const wrapped = containerCommand(command, headless, setup());
    const run = runArgs(wrapped.argv);
    expect(run).not.toContain('--tty');
    expect(run).toContain('orange.phase=classify');
    expect(run.flatMap((arg, i) => (run[i - 1] === '--env' ? [arg] : []))).not.toContain('TERM');
  });

  it('names containers with what docker accepts', () => {
    expect(containerName(['my app', 'x/y', 'worker', 'a'])).toBe('orange-my_app-x_y-worker-a');
  });
});

describe('DockerOptionsSchema', () => {
  it('refuses what it cannot carry: a relative or quoted mount path, a variable that is not a name, a size that is not one', () => {
    expect(DockerOptionsSchema.safeParse({ image: 'a', mounts: [{ source: 'rel', target: '/x' }] }).success).toBe(false);
    expect(DockerOptionsSchema.safeParse({ image: 'a', mounts: [{ source: '/a"b', target: '/x' }] }).success).toBe(false);
    expect(DockerOptionsSchema.safeParse({ image: 'a', env: ['A=B'] }).success).toBe(false);
    expect(DockerOptionsSchema.safeParse({ image: 'a', memory: 'lots' }).success).toBe(false);
    expect(DockerOptionsSchema.safeParse({ image: '--privileged' }).success).toBe(false);
    expect(DockerOptionsSchema.safeParse({ image: 'a', unknown: 1 }).success).toBe(false);
  });
});
