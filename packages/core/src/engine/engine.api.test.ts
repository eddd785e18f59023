/**
 * `orange.engine` as the CLI and the dashboard call it for answers rather than moves: each door
 * returns its part's answer (edits, requests, repairs and prompts have their own files).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { sandbox, taskIn, type Sandbox } from '../../test/fixtures.js';

let box: Sandbox;
afterEach(async () => box?.cleanup());

describe('orange.engine', () => {
  it('lists the legal targets of a status once each, without crash or forced moves', async () => {
    box = await sandbox();
    const workflow = box.orange.workflow('default');
    // agent-review → stuck is in the map twice (FAIL with its guard, and the crash limit); done only by force.
    expect(box.orange.engine.targets(workflow, 'agent-review')).toEqual(['reviewing', 'working', 'stuck', 'cancelled']);
    expect(box.orange.engine.targets(workflow, 'done')).toEqual([]);
  });

  it('ignores a missing agent that is not responsible for the status, saying why', async () => {
    box = await sandbox();
    const ref = await taskIn(box, 'pending');
    const outcome = await box.orange.engine.agentMissing(ref, 'worker');
    expect(outcome.decision).toEqual({ kind: 'ignore', reason: 'the worker is not responsible for pending' });
    expect(outcome.task.meta.status).toBe('pending');
  });
});
