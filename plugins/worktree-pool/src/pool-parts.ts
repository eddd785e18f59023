import type { Logger, Orange, Project } from '@orange/core';
import type { PoolFile } from './pool-file.js';
import type { ProjectRepo } from './project-repo.js';

/** What the pool's parts (reservation, clean-up, the queue) share: the instance, the pool file, the log, a project's repository. */
export interface PoolParts {
  readonly orange: Orange;
  readonly file: PoolFile;
  readonly log: Logger;
  repo(project: Project): ProjectRepo;
}
