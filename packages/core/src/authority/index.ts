// The authority room's door: who a call comes from (a person, or which task's agent), checked
// against Orange's own record, and what an agent may write. The one boundary an isolating runtime
// or the agent socket enforces as well.
export * from './caller.js';
