import { execa } from 'execa';

/**
 * The image and engine the Docker runtime's tests run against: `ORANGE_DOCKER_TEST_IMAGE` (set by
 * `.ci/run` from scripts/docker-test-image.sh) on an engine that answers. Where either is missing
 * the tests skip with the reason printed — except under CI, where they must run: there the
 * missing engine is a failure.
 */
export async function dockerTestImage(): Promise<{ image: string } | { skip: string }> {
  const image = process.env.ORANGE_DOCKER_TEST_IMAGE;
  const why = !image
    ? 'ORANGE_DOCKER_TEST_IMAGE is not set (build one with scripts/docker-test-image.sh)'
    : await execa('docker', ['image', 'inspect', image], { reject: false, timeout: 20_000 }).then((r) =>
        r.exitCode === 0 ? null : `docker cannot use image ${image}: ${String(r.stderr || r.stdout).trim().split('\n')[0] ?? ''}`,
      );
  if (why === null && image) return { image };
  if (process.env.CI) throw new Error(`the Docker runtime's tests must run under CI: ${why}`);
  console.warn(`skipping the Docker runtime's tests: ${why}`);
  return { skip: why ?? 'no image' };
}

/** Containers of one Orange home (their names), running or not. */
export async function containersOf(home: string): Promise<string[]> {
  const listed = await execa('docker', ['ps', '--all', '--filter', `label=orange.home=${home}`, '--format', '{{.Names}}'], { reject: false });
  return String(listed.stdout).split('\n').filter(Boolean);
}

/** Removes every container of one Orange home (a failed test's leftovers). */
export async function removeContainersOf(home: string): Promise<void> {
  const names = await containersOf(home);
  if (names.length > 0) await execa('docker', ['rm', '--force', ...names], { reject: false });
}
