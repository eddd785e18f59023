import { join } from 'node:path';
import { AGENT_SECRET_VARIABLE, TASK_ID_VARIABLE, type AgentRole, type OrangePaths, type TaskMeta } from '@orange/core';
import { shimDir } from './orange-shim.js';

export interface AgentEnvInput {
  readonly task: TaskMeta;
  readonly role: AgentRole;
  readonly prompt: string;
  readonly workspace: string;
  readonly spawnId: string;
  /** The spawn's secret (its identity: Orange keeps only its hash). */
  readonly secret: string;
  readonly paths: OrangePaths;
  /** The server the agent's own `orange` calls must reach (`tmux -L`), if not the default. */
  readonly socketName: string | undefined;
  /** The harness's extra variables; Orange's own names win over them. */
  readonly harnessEnv?: Readonly<Record<string, string>>;
  readonly basePath?: string;
}

/** The environment every agent gets, whatever its harness (the cross-package contract). */
export function agentEnv(input: AgentEnvInput): Record<string, string> & { PATH: string } {
  const { task } = input;
  const basePath = input.harnessEnv?.PATH ?? input.basePath ?? process.env.PATH ?? '';
  return {
    ...input.harnessEnv,
    [TASK_ID_VARIABLE]: task.id,
    ORANGE_PROJECT: task.project,
    ORANGE_BRANCH: task.branch,
    ORANGE_ROLE: input.role,
    ORANGE_STATUS: task.status,
    ORANGE_REVIEW_ROUND: String(task.review_round),
    ORANGE_PROMPT: input.prompt,
    ORANGE_TASK_FILE: join(input.workspace, 'TASK.md'),
    ORANGE_HOME: input.paths.home,
    ORANGE_SPAWN_ID: input.spawnId,
    [AGENT_SECRET_VARIABLE]: input.secret,
    ...(input.socketName ? { ORANGE_TMUX_SOCKET: input.socketName } : {}),
    PATH: basePath ? `${shimDir(input.paths)}:${basePath}` : shimDir(input.paths),
  };
}
