import { createHash } from 'node:crypto';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { execa } from 'execa';

/** One packed tarball and the manifest the registry serves for it. */
interface Packed {
  readonly name: string;
  readonly version: string;
  readonly file: string;
  readonly manifest: Record<string, unknown>;
}

/**
 * An npm registry on 127.0.0.1 serving tarballs packed on this machine: the monorepo's own
 * packages and every third-party package they depend on, packed from the monorepo's
 * node_modules. `npm install` against it needs no network and no npm cache, and resolves
 * dependencies exactly as against npmjs.org (several versions of one package included).
 */
export class LocalRegistry {
  private constructor(
    private readonly server: Server,
    readonly url: string,
    readonly packed: readonly Packed[],
  ) {}

  /**
   * Packs `workspaces` (directories of the monorepo), the third-party packages named in `extra`
   * (as the monorepo has them installed, e.g. vitest for a team's own tests) and the closure of
   * their dependencies into `dir`, then serves them.
   */
  static async start(root: string, workspaces: readonly string[], dir: string, extra: readonly string[] = []): Promise<LocalRegistry> {
    const extraDirs = extra.map((name) => {
      const at = locate(root, name);
      if (at === null) throw new Error(`${name} is not installed in the monorepo`);
      return realpathSync(at);
    });
    const thirdParty = [...new Set([...extraDirs, ...dependencyClosure([...workspaces.map((w) => join(root, w)), ...extraDirs])])];
    const packed = [...(await pack(root, workspaces.map((w) => join(root, w)), dir)), ...(await pack(root, thirdParty, dir))];
    const byName = new Map<string, Packed[]>();
    for (const p of packed) byName.set(p.name, [...(byName.get(p.name) ?? []), p]);
    let url = '';
    const server = createServer((request, response) => {
      void (async () => {
        const path = decodeURIComponent((request.url ?? '/').split('?')[0] ?? '/').slice(1);
        const tarball = /^-\/(.+\.tgz)$/.exec(path)?.[1];
        if (tarball !== undefined) {
          const hit = packed.find((p) => p.file.endsWith(`/${tarball}`));
          if (!hit) return void response.writeHead(404).end();
          return void response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(await readFile(hit.file));
        }
        const versions = byName.get(path);
        if (!versions) return void response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
        const packument = {
          name: path,
          'dist-tags': { latest: versions[versions.length - 1]?.version },
          versions: Object.fromEntries(
            versions.map((p) => {
              const bytes = readFileSync(p.file);
              const dist = {
                tarball: `${url}-/${p.file.split('/').pop()}`,
                shasum: createHash('sha1').update(bytes).digest('hex'),
                integrity: `sha512-${createHash('sha512').update(bytes).digest('base64')}`,
              };
              return [p.version, { ...p.manifest, dist }];
            }),
          ),
        };
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(packument));
      })().catch((error: unknown) => response.writeHead(500).end(String(error)));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    return new LocalRegistry(server, url, packed);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** `npm pack` of several directories in one call; scripts off (a package's prepack must not run here). */
async function pack(root: string, dirs: readonly string[], into: string): Promise<Packed[]> {
  if (dirs.length === 0) return [];
  const result = await execa('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', into, ...dirs], { cwd: root, env: { npm_config_update_notifier: 'false' } });
  const listed = JSON.parse(String(result.stdout)) as { name: string; version: string; filename: string }[];
  return listed.map((entry, index) => ({
    name: entry.name,
    version: entry.version,
    file: join(into, entry.filename),
    manifest: JSON.parse(readFileSync(join(dirs[index] as string, 'package.json'), 'utf8')) as Record<string, unknown>,
  }));
}

/** Every third-party package the packages in `dirs` need at run time, found as Node would from each dependent. */
function dependencyClosure(dirs: readonly string[]): string[] {
  const found = new Set<string>();
  const queue = [...dirs];
  while (queue.length > 0) {
    const dir = queue.shift() as string;
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string>; optionalDependencies?: Record<string, string> };
    for (const name of Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies })) {
      if (name.startsWith('@orange/')) continue;
      const at = locate(dir, name);
      if (at === null) {
        if (manifest.optionalDependencies?.[name] !== undefined) continue;
        throw new Error(`${name} (a dependency of ${dir}) is not installed in the monorepo`);
      }
      const real = realpathSync(at);
      if (found.has(real)) continue;
      found.add(real);
      queue.push(real);
    }
  }
  return [...found];
}

function locate(from: string, name: string): string | null {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dir === dirname(dir)) return null;
  }
}
