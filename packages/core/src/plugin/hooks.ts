import { AsyncSeriesBailHook, AsyncSeriesHook, AsyncSeriesWaterfallHook, HookMap } from 'tapable';
import type { Task } from '../task/index.js';
import type {
  ActionContext,
  AfterTransitionEvent,
  AgentCommand,
  AgentCommandEvent,
  AgentEvent,
  AutoAdvancedEvent,
  Classification,
  ClassifyEvent,
  CrashEvent,
  HookFailedEvent,
  NotificationEvent,
  OrangeHooks,
  PipelineNoticeEvent,
  PromptEvent,
  PullRequestEvent,
  RespawnEvent,
  SweepEvent,
  TaskEvent,
  TransitionEvent,
  TransitionRefusedEvent,
} from './orange.js';

/** Creates the bus (what each hook is for: `OrangeHooks`). */
export function createHooks(): OrangeHooks {
  return Object.freeze({
    taskCreated: new AsyncSeriesHook<[TaskEvent]>(['event']),
    beforeTransition: new AsyncSeriesBailHook<[TransitionEvent], string | undefined | void>(['event']),
    transitionRefused: new AsyncSeriesHook<[TransitionRefusedEvent]>(['event']),
    statusWritten: new AsyncSeriesHook<[TransitionEvent]>(['event']),
    afterTransition: new AsyncSeriesHook<[AfterTransitionEvent]>(['event']),
    hookFailed: new AsyncSeriesHook<[HookFailedEvent]>(['event']),
    agentSpawned: new AsyncSeriesHook<[AgentEvent]>(['event']),
    agentExited: new AsyncSeriesHook<[AgentEvent]>(['event']),
    crash: new AsyncSeriesHook<[CrashEvent]>(['event']),
    autoAdvanced: new AsyncSeriesHook<[AutoAdvancedEvent]>(['event']),
    notification: new AsyncSeriesHook<[NotificationEvent]>(['event']),
    pullRequestChecked: new AsyncSeriesHook<[PullRequestEvent]>(['event']),
    respawn: new AsyncSeriesBailHook<[RespawnEvent], Task | undefined | void>(['event']),
    prompt: new AsyncSeriesWaterfallHook<[string, PromptEvent]>(['prompt', 'event']),
    agentCommand: new AsyncSeriesWaterfallHook<[AgentCommand, AgentCommandEvent]>(['command', 'event']),
    classify: new AsyncSeriesBailHook<[ClassifyEvent], Classification | undefined | void>(['event']),
    pipelineNotice: new AsyncSeriesHook<[PipelineNoticeEvent]>(['event']),
    sweep: new AsyncSeriesHook<[SweepEvent]>(['event']),
    actions: new HookMap((name: string) => new AsyncSeriesHook<[ActionContext]>(['context'], name)),
  });
}
