import { packageBuild } from '../../tsup.base';

// One file per command (oclif loads only the one it runs); shared code goes to chunks.
export default packageBuild({ entry: ['src/index.ts', 'src/commands/**/*.ts', 'src/hooks/*.ts'], dts: false, splitting: true });
