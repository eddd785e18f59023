import type { Config } from '@oclif/core/config';
import type { Orange } from '@orange/core';

/** Both sockets of a running gateway. */
export interface Gateway {
  /** Stops taking calls, lets the ones in flight finish, and removes the sockets. */
  close(): Promise<void>;
}

/**
 * Starts the gateway for a long-running command (the monitor, the dashboard): the agents' socket,
 * then the people's. Null when another Orange serves this home already, or the agents' socket
 * cannot be made (the log says why). Loaded on demand: the commands agents call never load it.
 */
export async function startGateway(config: Config, orange: Orange, dir: string, build: (cwd: string) => Promise<Orange>): Promise<Gateway | null> {
  const [{ GatewayServer }, { orangeCache }] = await Promise.all([import('./gateway-server.js'), import('./orange-cache.js')]);
  const cache = orangeCache(orange, dir, build);
  const host = { config, orange, orangeFor: cache.get };
  const agents = new GatewayServer(host, 'agent');
  if (!(await agents.start())) return null;
  const people = new GatewayServer(host, 'person');
  const peopleServed = await people.start();
  return {
    close: async () => {
      await Promise.all([agents.close(), peopleServed ? people.close() : undefined]);
      // Delivered in this process, the served calls' notifications must be out before it stops.
      await cache.settle();
    },
  };
}
