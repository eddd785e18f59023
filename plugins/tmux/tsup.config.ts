import { packageBuild } from '../../tsup.base';

// The window reaper is the detached process that kills a caller's own window after the caller exits.
const library = packageBuild({ entry: ['src/index.ts', 'src/window-reaper.ts'], dts: { entry: 'src/index.ts' }, clean: false });

// The agent wrapper runs beside every agent and must start fast: one CommonJS file (Node's ES
// module loader alone costs it ~5 ms of CPU), the gateway's client inlined.
const wrapper = packageBuild({ entry: { 'agent-wrapper': 'src/agent-wrapper.ts' }, format: ['cjs'], dts: false, clean: false, noExternal: [/.*/] });

export default [library, wrapper];
