import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin, OrangeError, parsePluginOptions, quickRun, type AgentCommand, type AgentCommandEvent, type Orange, type OrangePlugin } from '@orange/core';
import { containerClient } from './container-client.js';
import { containerCommand } from './container-command.js';
import { DockerOptionsSchema, type DockerOptions, type DockerSettings } from './options.js';
import { sweepContainers } from './sweep.js';
import { workspaceMounts } from './workspace-mounts.js';

const PLUGIN = 'docker';

/**
 * The Docker runtime: every agent of the chosen projects (all by default) runs in a container of
 * its own, inside the tmux window Orange gives it as before — attach, the live preview, notices,
 * transcripts and exit reports work unchanged. The container reaches its worktree, its task's
 * TASK.md folder and the agents' socket, and what the config adds by name; nothing else of
 * Orange's (docs/runtimes/docker.md).
 */
export function docker(options: DockerOptions): OrangePlugin {
  const settings = parsePluginOptions(PLUGIN, DockerOptionsSchema, options);
  return definePlugin({
    name: PLUGIN,
    apply(orange) {
      orange.hooks.agentCommand.tapPromise(PLUGIN, async (command, event) => {
        if (settings.projects && !settings.projects.includes(event.task.meta.project)) return command;
        // The pipeline's driver is Orange itself: it stays on the host and its headless runs come here one by one.
        if (event.run.kind === 'terminal' && event.run.internal) return command;
        return inContainer(orange, settings, command, event);
      });
      orange.hooks.sweep.tapPromise(PLUGIN, async (event) => {
        // The doctor also learns whether agents could start: the engine answers, the image is there and runs the client.
        if (!event.remove) await containerClient(settings.docker, settings.image, orange.paths).catch((error: unknown) => event.found.push(error instanceof Error ? error.message : String(error)));
        await sweepContainers(event, settings);
      });
    },
  });
}

async function inContainer(orange: Orange, settings: DockerSettings, command: AgentCommand, event: AgentCommandEvent): Promise<AgentCommand> {
  const meta = event.task.meta;
  if (command.argv.length === 0) return command;
  const [client, workspace, identity] = await Promise.all([containerClient(settings.docker, settings.image, orange.paths), workspaceMounts(command.cwd), gitIdentity(command.cwd)]);
  const gatewayDir = dirname(orange.paths.gatewaySocket);
  // Mounted as a folder (a monitor started later makes its socket there, and the container sees it).
  await mkdir(gatewayDir, { recursive: true, mode: 0o700 });
  if (!existsSync(orange.paths.gatewaySocket)) {
    // The container's `orange` reaches Orange only through the gateway, which `orange monitor` serves.
    orange.log.warn('no gateway answers agents yet: the agent in the container cannot call orange until `orange monitor` runs', { task: meta.id });
  }
  const uid = process.getuid?.() ?? 0;
  const gid = process.getgid?.() ?? 0;
  return containerCommand({ ...command, env: { ...identity, ...command.env } }, event, {
    settings,
    home: orange.paths.home,
    agentDir: orange.paths.agentDir(meta.project, meta.id),
    gatewayDir,
    client,
    workspace,
    node: process.execPath,
    runner: runnerPath(),
    user: `${uid}:${gid}`,
    unique: event.run.kind === 'terminal' ? event.run.spawnId : randomBytes(4).toString('hex'),
  });
}

/**
 * Who the agent's commits are by: the container has none of the host's git settings, so the
 * identity git uses on the host for that worktree goes in as git's variables (by name, like the rest).
 */
async function gitIdentity(worktree: string): Promise<Record<string, string>> {
  const ask = async (key: string) => {
    const found = await quickRun('git', ['-C', worktree, 'config', '--get', key]);
    return found.exitCode === 0 ? found.stdout.trim() : '';
  };
  const env = process.env;
  const name = env.GIT_AUTHOR_NAME ?? (await ask('user.name'));
  const email = env.GIT_AUTHOR_EMAIL ?? (await ask('user.email'));
  const identity: Record<string, string> = {};
  if (name) Object.assign(identity, { GIT_AUTHOR_NAME: name, GIT_COMMITTER_NAME: env.GIT_COMMITTER_NAME ?? name });
  if (email) Object.assign(identity, { GIT_AUTHOR_EMAIL: email, GIT_COMMITTER_EMAIL: env.GIT_COMMITTER_EMAIL ?? email });
  return identity;
}

/** The container runner beside this module in `dist/`, or — when this module runs from `src/` (tests) — in the package's `dist/`. */
function runnerPath(): string {
  const sibling = fileURLToPath(new URL('./container-runner.cjs', import.meta.url));
  if (existsSync(sibling)) return sibling;
  const built = fileURLToPath(new URL('../dist/container-runner.cjs', import.meta.url));
  if (existsSync(built)) return built;
  throw new OrangeError('E_RUNTIME', `docker: the container runner is not built (${built}); run npm run build`);
}
