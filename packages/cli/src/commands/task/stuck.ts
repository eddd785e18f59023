import { StatusRequest } from '../../command/status-request.js';

export default class TaskStuck extends StatusRequest {
  static override summary = 'Ask for a human (request stuck).';
  static override examples = ['<%= config.bin %> task stuck               # inside the worktree'];
  protected readonly target = 'stuck';
}
