import { packageBuild } from '../../tsup.base';

// `@orange/core/gateway` is an entry of its own: the agent gateway's client, loaded by every
// agent's `orange` call and exit report, must not load the rest of core.
export default packageBuild({ entry: { index: 'src/index.ts', 'gateway/index': 'src/gateway/index.ts' } });
