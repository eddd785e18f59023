/**
 * Agent identities: a secret per spawn, kept only as a hash, that later proves a call came from
 * that spawn — and nothing else does, whatever state the identities file is in.
 */
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentIdentities } from './agent-identities.js';
import { OrangePaths } from './paths.js';

let home: string;
let paths: OrangePaths;
let identities: AgentIdentities;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'orange-identities-'));
  paths = new OrangePaths(home);
  identities = new AgentIdentities(paths);
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const file = () => paths.agentIdentitiesFile('app', 'T1');
const spawnName = (n: number) => `spawn${String(n).padStart(2, '0')}`;

async function writeRecords(records: Record<string, unknown> | string): Promise<void> {
  await mkdir(dirname(file()), { recursive: true });
  await writeFile(file(), typeof records === 'string' ? records : JSON.stringify(records));
}

/** Issues worker spawns 1..n of the task, returning their secrets by spawn id. */
async function issueSpawns(n: number): Promise<Map<string, string>> {
  const secrets = new Map<string, string>();
  for (let i = 1; i <= n; i++) secrets.set(spawnName(i), await identities.issue('app', 'T1', 'worker', spawnName(i)));
  return secrets;
}

describe('issue and verify', () => {
  it('gives a secret fit for an environment variable and keeps only its hash', async () => {
    const secret = await identities.issue('app', 'T1', 'worker', 'sp1');
    // 24 random bytes in base64url: no character a shell or an env file would mangle.
    expect(secret).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const text = await readFile(file(), 'utf8');
    expect(text).not.toContain(secret);
    expect(text.endsWith('}\n')).toBe(true);
    expect(JSON.parse(text)).toEqual({ sp1: { role: 'worker', hash: sha256(secret), at: expect.any(String) } });
  });

  it('recognises each spawn by its own secret, as the role it was started as', async () => {
    const worker = await identities.issue('app', 'T1', 'worker', 'sp1');
    const reviewer = await identities.issue('app', 'T1', 'reviewer', 'sp2');
    expect(await identities.verify('app', 'T1', 'sp1', worker)).toBe('worker');
    expect(await identities.verify('app', 'T1', 'sp2', reviewer)).toBe('reviewer');
  });

  it('refuses a wrong secret, another spawn’s secret, an unknown spawn and another task', async () => {
    const worker = await identities.issue('app', 'T1', 'worker', 'sp1');
    const reviewer = await identities.issue('app', 'T1', 'reviewer', 'sp2');
    expect(await identities.verify('app', 'T1', 'sp1', 'guessed')).toBeNull();
    expect(await identities.verify('app', 'T1', 'sp1', reviewer)).toBeNull();
    expect(await identities.verify('app', 'T1', 'sp3', worker)).toBeNull();
    expect(await identities.verify('app', 'T2', 'sp1', worker)).toBeNull();
  });

  it('replaces the secret of a spawn issued again: the old one no longer proves anything', async () => {
    const old = await identities.issue('app', 'T1', 'worker', 'sp1');
    const fresh = await identities.issue('app', 'T1', 'reviewer', 'sp1');
    expect(await identities.verify('app', 'T1', 'sp1', old)).toBeNull();
    expect(await identities.verify('app', 'T1', 'sp1', fresh)).toBe('reviewer');
    expect(Object.keys(JSON.parse(await readFile(file(), 'utf8')) as object)).toEqual(['sp1']);
  });
});

describe('the last 16 spawns are remembered', () => {
  it('forgets the oldest spawn when a 17th is issued, and knows the other 16', async () => {
    const secrets = await issueSpawns(17);
    expect(await identities.verify('app', 'T1', spawnName(1), secrets.get(spawnName(1)) ?? '')).toBeNull();
    for (let i = 2; i <= 17; i++) {
      expect(await identities.verify('app', 'T1', spawnName(i), secrets.get(spawnName(i)) ?? ''), spawnName(i)).toBe('worker');
    }
  });

  it('forgets no other spawn when one of 16 is issued again', async () => {
    const secrets = await issueSpawns(16);
    const again = await identities.issue('app', 'T1', 'reviewer', spawnName(16));
    for (let i = 1; i <= 15; i++) {
      expect(await identities.verify('app', 'T1', spawnName(i), secrets.get(spawnName(i)) ?? ''), spawnName(i)).toBe('worker');
    }
    expect(await identities.verify('app', 'T1', spawnName(16), again)).toBe('reviewer');
  });

  it('forgets the spawn issued longest ago, by its time, not by its place in the file', async () => {
    // Newest first in the file: what the file's order says is oldest was issued last.
    const records: Record<string, unknown> = {};
    for (let i = 1; i <= 16; i++) {
      records[spawnName(i)] = { role: 'worker', hash: sha256(`secret-${i}`), at: new Date(Date.UTC(2024, 0, 1, 0, 0, 17 - i)).toISOString() };
    }
    await writeRecords(records);
    const newest = await identities.issue('app', 'T1', 'worker', 'spawn17');
    expect(await identities.verify('app', 'T1', spawnName(16), 'secret-16')).toBeNull();
    for (let i = 1; i <= 15; i++) expect(await identities.verify('app', 'T1', spawnName(i), `secret-${i}`), spawnName(i)).toBe('worker');
    expect(await identities.verify('app', 'T1', 'spawn17', newest)).toBe('worker');
  });
});

describe('a damaged identities file', () => {
  it('that is not JSON proves nothing, and is replaced by the next spawn', async () => {
    await writeRecords('{"sp1": {"role": "wor');
    expect(await identities.verify('app', 'T1', 'sp1', 'anything')).toBeNull();
    const secret = await identities.issue('app', 'T1', 'worker', 'sp2');
    expect(await identities.verify('app', 'T1', 'sp2', secret)).toBe('worker');
  });

  it('whose hash is not a hash proves nothing rather than failing the call', async () => {
    await writeRecords({ sp1: { role: 'worker', hash: 'abcd', at: '2024-01-01T00:00:00.000Z' } });
    expect(await identities.verify('app', 'T1', 'sp1', 'anything')).toBeNull();
  });

  it('whose records do not have the expected shape proves nothing', async () => {
    await writeRecords({ sp1: { role: 'admin', hash: sha256('s'), at: '2024-01-01T00:00:00.000Z' } });
    expect(await identities.verify('app', 'T1', 'sp1', 's')).toBeNull();
  });
});
