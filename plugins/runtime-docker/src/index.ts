export { docker } from './docker.js';
export { DockerOptionsSchema, type DockerOptions, type DockerSettings, type DockerMount } from './options.js';
export { containerCommand, containerName, LABELS, type ContainerSetup } from './container-command.js';
export { workspaceMounts, type BindMount } from './workspace-mounts.js';
