import type { Config } from '@oclif/core/config';
import type { Orange } from '@orange/core';
import type { AgentGateway } from './agent-gateway.js';

/**
 * Starts the agent gateway for a long-running command (the monitor, the dashboard): null when
 * another Orange serves this home already, or the socket cannot be made (the log says why).
 * Loaded on demand: the commands agents call never load the server.
 */
export async function startGateway(config: Config, orange: Orange, dir: string, build: (cwd: string) => Promise<Orange>): Promise<AgentGateway | null> {
  const [{ AgentGateway }, { orangeCache }] = await Promise.all([import('./agent-gateway.js'), import('./orange-cache.js')]);
  const gateway = new AgentGateway({ config, orange, orangeFor: orangeCache(orange, dir, build) });
  return (await gateway.start()) ? gateway : null;
}
