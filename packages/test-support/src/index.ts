// Imported by tests only, from its TypeScript sources (vitest compiles them; nothing is built).

// The sandbox pieces: a temp folder, a bare origin and its clone, a tmux server of the test's own,
// the processes of the test's world.
export { tempDir } from './temp-dir.js';
export { git, makeOrigin, TEST_GIT_IDENTITY, useTestGitIdentity, type OriginOptions } from './git.js';
export { TmuxServer, type CommandResult } from './tmux-server.js';
export { removeTmuxSocket, tmuxSocketFile } from './tmux-socket.js';
export { processesEnd, processesOf, type LiveProcess, type ProcessesEndOptions } from './live-processes.js';
export { processAlive, signalProcess } from './signal-process.js';

// Stand-ins for what tests cannot reach or leave out: GitHub's CLI, webhook endpoints, plugins.
export { pullRequestUrl, standInGh, type GhAnswer, type GhAnswers, type PullRequestState, type StandInGh } from './stand-in-gh.js';
export { httpReceiver, type HttpReceiver, type ReceivedRequest, type Reply } from './http-receiver.js';
export { recordingActions, type RecordingActionsOptions } from './recording-actions.js';

export { waitFor, type Held, type WaitOptions } from './wait-for.js';
export { builtEntryUrl, orangeCli, pipelineAgent, repoRoot, scriptedAgent } from './repository.js';
export { agentCli } from './agent-cli.js';
export { cannotRunHere, NOBODY, nobodyCannotRead } from './cannot-run-here.js';
