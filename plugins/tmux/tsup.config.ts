import { packageBuild } from '../../tsup.base';

// The agent wrapper is its own entry: it runs in every agent window and must start fast. The
// window reaper is the detached process that kills a caller's own window after the caller exits.
// The transcript writer keeps each agent's terminal output (tmux pipe-pane feeds it).
export default packageBuild({ entry: ['src/index.ts', 'src/agent-wrapper.ts', 'src/window-reaper.ts', 'src/transcript-writer.ts'], dts: { entry: 'src/index.ts' } });
