import { packageBuild } from '../../tsup.base';

// The agent wrapper is its own entry: it runs in every agent window and must start fast.
export default packageBuild({ entry: ['src/index.ts', 'src/agent-wrapper.ts'], dts: { entry: 'src/index.ts' } });
