import { StatusRequest } from '../../command/status-request.js';

export default class TaskComplete extends StatusRequest {
  static override summary = 'Hand the work to review (request agent-review).';
  static override description = 'Needs a ## Handoff with at least one of DONE / REMAINING / DECISIONS / UNCERTAIN.';
  static override examples = ['<%= config.bin %> task complete            # inside the worktree', '<%= config.bin %> task complete V1StGXR8Z5jdHi6BmyT4a'];
  protected readonly target = 'agent-review';
}
