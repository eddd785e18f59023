import { isAbsolute } from 'node:path';
import { z } from 'zod';

// A path becomes one field of `docker run --mount`, whose value is CSV: a quote or a line break
// cannot be carried in it, so such a path is refused here rather than mangled there.
const hostPath = z
  .string()
  .refine((path) => isAbsolute(path), 'must be an absolute path')
  .refine((path) => !/["\n\r]/.test(path), 'must not contain a double quote or a line break');

const MountSchema = z
  .object({
    /** A file or folder of the host. */
    source: hostPath,
    /** Where the container sees it. */
    target: hostPath,
    /** Read-only unless this is false. */
    readonly: z.boolean().default(true),
  })
  .strict();

export const DockerOptionsSchema = z
  .object({
    /** The image every agent runs in (it must have perl, for the `orange` client, and git). Never pulled: build or load it first. */
    image: z.string().min(1).regex(/^[^\s-][^\s]*$/, 'must be an image reference (name[:tag] or an id)'),
    /** Only these projects' agents run in containers (default: every project's). */
    projects: z.array(z.string().min(1)).min(1).optional(),
    /** CPUs per container (`docker run --cpus`). */
    cpus: z.number().positive().optional(),
    /** Memory per container (`docker run --memory`): `512m`, `4g`. */
    memory: z
      .string()
      .regex(/^\d+(\.\d+)?[bkmg]?$/i, 'must be a size like 512m or 4g')
      .optional(),
    /** Processes per container (`--pids-limit`): a fork bomb stops there. */
    pids: z.number().int().positive().default(1024),
    /** The container's network (`bridge`, `none`, a network's name). */
    network: z.string().min(1).default('bridge'),
    /** Variables handed to the agent by name only: their values come from Orange's environment, never from a command line. */
    env: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a variable name')).default([]),
    /** Further bind mounts, each listed explicitly (read-only unless `readonly: false`). */
    mounts: z.array(MountSchema).default([]),
    /** The agent's `HOME` inside the container (a writable place for its CLI's settings). */
    home: hostPath.default('/tmp'),
    /** The `docker` CLI to run (a path or a name on PATH); `DOCKER_HOST` and contexts apply as usual. */
    docker: z.string().min(1).default('docker'),
  })
  .strict();

export type DockerOptions = z.input<typeof DockerOptionsSchema>;
export type DockerSettings = z.output<typeof DockerOptionsSchema>;
export type DockerMount = z.output<typeof MountSchema>;
