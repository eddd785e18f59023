import { packageBuild } from '../../tsup.base';

const library = packageBuild({ clean: false });

// The container runner sits between the agent wrapper and `docker run` for every agent: one
// CommonJS file with nothing to resolve, so that it starts fast.
const runner = packageBuild({ entry: { 'container-runner': 'src/container-runner.ts' }, format: ['cjs'], dts: false, clean: false, noExternal: [/.*/] });

export default [library, runner];
