import type { Hook } from '@oclif/core';

/**
 * The git commit the CLI was built from (`3f9c2ab`, or `3f9c2ab-dirty` when the working tree had
 * changes), written into the bundle by tsup.config.ts; empty for a build outside a git checkout.
 */
declare const __ORANGE_COMMIT__: string | undefined;

/** The commit this bundle was built from, or '' (unbundled sources, a build from a tarball). */
export function buildCommit(): string {
  return typeof __ORANGE_COMMIT__ === 'string' ? __ORANGE_COMMIT__ : '';
}

/**
 * oclif's version line with the commit after it:
 * `@orange/cli/0.1.0 linux-x64 node-v20.20.2` → `… node-v20.20.2 (commit 3f9c2ab)`. Last, so that
 * the three fields before it stay where oclif's own readers (and scripts cutting the first) find them.
 */
export function withCommit(userAgent: string, commit: string): string {
  return commit === '' ? userAgent : `${userAgent} (commit ${commit})`;
}

/**
 * oclif's `init` hook: every place that shows the version (`orange --version`, `orange version`,
 * the VERSION of `orange help`) reads `config.userAgent`, so the commit is put there, once.
 */
const commitInVersion: Hook<'init'> = async function () {
  // A plain field of oclif's Config class; its interface marks it read-only for plugins.
  const config = this.config as { userAgent: string };
  config.userAgent = withCommit(config.userAgent, buildCommit());
};

export default commitInVersion;
