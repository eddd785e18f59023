// oclif's explicit command strategy: the CLI is bundled (see tsup.config.ts), so oclif takes the
// command classes from this table instead of importing one file per command from a directory.
// Each command stays thin; what a command needs beyond its flags (the Orange instance, plugins,
// the demo) is imported when it runs.
import AgentExited from '../commands/agent/exited.js';
import Completion from '../commands/completion.js';
import Dash from '../commands/dash.js';
import Demo from '../commands/demo.js';
import Doctor from '../commands/doctor.js';
import Init from '../commands/init.js';
import Install from '../commands/install.js';
import Log from '../commands/log.js';
import MemoryForget from '../commands/memory/forget.js';
import MemoryList from '../commands/memory/list.js';
import MemoryShow from '../commands/memory/show.js';
import Monitor from '../commands/monitor.js';
import NotificationsDeliver from '../commands/notifications/deliver.js';
import PipelineRun from '../commands/pipeline/run.js';
import ProjectAdd from '../commands/project/add.js';
import ProjectList from '../commands/project/list.js';
import ProjectRemove from '../commands/project/remove.js';
import ProjectUpdate from '../commands/project/update.js';
import TaskAttach from '../commands/task/attach.js';
import TaskCancel from '../commands/task/cancel.js';
import TaskClarify from '../commands/task/clarify.js';
import TaskComplete from '../commands/task/complete.js';
import TaskCreatePr from '../commands/task/create-pr.js';
import TaskCreate from '../commands/task/create.js';
import TaskDelete from '../commands/task/delete.js';
import TaskList from '../commands/task/list.js';
import TaskMerge from '../commands/task/merge.js';
import TaskMove from '../commands/task/move.js';
import TaskOutput from '../commands/task/output.js';
import TaskRepair from '../commands/task/repair.js';
import TaskRequestChanges from '../commands/task/request-changes.js';
import TaskRespawn from '../commands/task/respawn.js';
import TaskSectionSet from '../commands/task/section/set.js';
import TaskResume from '../commands/task/resume.js';
import TaskShow from '../commands/task/show.js';
import TaskSpawn from '../commands/task/spawn.js';
import TaskStuck from '../commands/task/stuck.js';
import TaskUpdate from '../commands/task/update.js';
import Web from '../commands/web.js';
import WorkflowShow from '../commands/workflow/show.js';
import WorkflowSimulate from '../commands/workflow/simulate.js';
import WorkspaceGc from '../commands/workspace/gc.js';
import WorkspaceInit from '../commands/workspace/init.js';
import WorkspaceList from '../commands/workspace/list.js';

/** Every command, keyed by its oclif id (`task:show` is `orange task show`). */
export const COMMANDS = {
  'agent:exited': AgentExited,
  'completion': Completion,
  'dash': Dash,
  'demo': Demo,
  'doctor': Doctor,
  'init': Init,
  'install': Install,
  'log': Log,
  'memory:forget': MemoryForget,
  'memory:list': MemoryList,
  'memory:show': MemoryShow,
  'monitor': Monitor,
  'notifications:deliver': NotificationsDeliver,
  'pipeline:run': PipelineRun,
  'project:add': ProjectAdd,
  'project:list': ProjectList,
  'project:remove': ProjectRemove,
  'project:update': ProjectUpdate,
  'task:attach': TaskAttach,
  'task:cancel': TaskCancel,
  'task:clarify': TaskClarify,
  'task:complete': TaskComplete,
  'task:create-pr': TaskCreatePr,
  'task:create': TaskCreate,
  'task:delete': TaskDelete,
  'task:list': TaskList,
  'task:merge': TaskMerge,
  'task:move': TaskMove,
  'task:output': TaskOutput,
  'task:repair': TaskRepair,
  'task:request-changes': TaskRequestChanges,
  'task:respawn': TaskRespawn,
  'task:section:set': TaskSectionSet,
  'task:resume': TaskResume,
  'task:show': TaskShow,
  'task:spawn': TaskSpawn,
  'task:stuck': TaskStuck,
  'task:update': TaskUpdate,
  'web': Web,
  'workflow:show': WorkflowShow,
  'workflow:simulate': WorkflowSimulate,
  'workspace:gc': WorkspaceGc,
  'workspace:init': WorkspaceInit,
  'workspace:list': WorkspaceList,
};
