import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import type { AgentRole } from '../task/index.js';
import { writeFileAtomic } from './atomic.js';
import type { OrangePaths } from './paths.js';

/** How many spawns of one task are remembered (an agent's exit report may come after a newer spawn). */
const KEPT = 16;

const RecordSchema = z.record(z.string(), z.object({ role: z.enum(['worker', 'reviewer']), hash: z.string(), at: z.string() }));
type Records = z.output<typeof RecordSchema>;

function hashOf(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/**
 * Who each spawned agent is: a random secret per spawn, given to the agent in its environment
 * (`ORANGE_AGENT_SECRET`) and kept here only as a hash, in `tasks/<project>/<id>/identities.json`.
 * A call that shows a spawn id with its secret is that agent. Written under the task lock (spawns
 * run in actions, which hold it); read without it.
 */
export class AgentIdentities {
  constructor(private readonly paths: OrangePaths) {}

  /** A new secret for spawn `spawn` of the task, recorded (as a hash) before it is returned. */
  async issue(project: string, id: string, role: AgentRole, spawn: string): Promise<string> {
    const secret = randomBytes(24).toString('base64url');
    const records = await this.read(project, id);
    const kept = Object.entries(records)
      .filter(([key]) => key !== spawn)
      .sort(([, a], [, b]) => a.at.localeCompare(b.at))
      .slice(-(KEPT - 1));
    const next: Records = Object.fromEntries([...kept, [spawn, { role, hash: hashOf(secret), at: new Date().toISOString() }]]);
    await writeFileAtomic(this.paths.agentIdentitiesFile(project, id), `${JSON.stringify(next, null, 2)}\n`);
    return secret;
  }

  /** The role spawn `spawn` was started as, when `secret` is that spawn's; null otherwise. */
  async verify(project: string, id: string, spawn: string, secret: string): Promise<AgentRole | null> {
    const record = (await this.read(project, id))[spawn];
    if (record === undefined) return null;
    const expected = Buffer.from(record.hash, 'hex');
    const given = Buffer.from(hashOf(secret), 'hex');
    return expected.length === given.length && timingSafeEqual(expected, given) ? record.role : null;
  }

  private async read(project: string, id: string): Promise<Records> {
    const text = await readFile(this.paths.agentIdentitiesFile(project, id), 'utf8').catch(() => null);
    if (text === null) return {};
    try {
      const parsed = RecordSchema.safeParse(JSON.parse(text));
      return parsed.success ? parsed.data : {};
    } catch {
      return {};
    }
  }
}
