import { packageBuild } from '../../tsup.base';

// ink and react stay external (packageBuild's default): the CLI's bundle keeps them
// external too, so they are loaded only when `orange dash` runs.
export default packageBuild({ entry: ["src/index.ts"] });
