/**
 * The Orange skill that `orange install` writes for each harness: how an agent — worker,
 * reviewer, or the orchestrator in the user's terminal — works with Orange. Written in the
 * SKILL.md format (YAML frontmatter with name and description) that Claude Code and Codex read.
 */
export const SKILL_NAME = 'orange';

export const SKILL_MARKDOWN = `---
name: orange
description: Work inside an Orange task (worker or reviewer), or split a request into parallel Orange tasks (orchestrator). Use when TASK.md is in the working directory, when the prompt mentions orange, or when asked to run work in parallel with orange.
---

# Working with Orange

Orange runs many coding agents at once, each in its own git worktree and tmux session, and moves
every task through a fixed state machine. You never decide a task's fate: you write artifacts
into \`TASK.md\` and *ask* for a status with the \`orange\` command. Orange checks the request
against the workflow and the artifacts, and refuses with one sentence saying what is missing.
Read the refusal, fix what it names, and ask again.

Inside a task's worktree the task id is inferred: \`orange task update --status working\`.
Add \`--json\` to any command for machine-readable output (errors too).

Agents ask, people decide. As a task's agent (Orange started you; your environment says so) you
may read any task but write only your own, and take only the agents' moves: \`done\` and
\`cancelled\` are a person's (\`orange task merge\`, \`orange task cancel\`), and so are \`merge\`,
\`cancel\`, \`delete\`, \`create\` and the \`project\` commands. Asking for them is refused with the
command the person uses: your work is finished when you hand it to review.

## TASK.md

- The frontmatter (between \`---\` lines) belongs to Orange. Never edit \`status\` by hand: a
  status that does not match the history is detected as tampering and refused.
- The body is yours. Sections are \`## Heading\` lines; Orange reads them, not your words.
  Write a section with \`orange task section set NAME --text "…"\` (or \`… NAME -\` with the text on
  standard input): it replaces just that section, safely, while Orange may be writing the file too.
  - \`## Plan\` — needs \`APPROACH:\` and \`TOUCHING:\` lines (optional \`RISKS:\`), each with text.
  - \`## Handoff\` — at least one of \`DONE:\`, \`REMAINING:\`, \`DECISIONS:\`, \`UNCERTAIN:\` with text.
  - \`## Review\` — first line \`Verdict: PASS\` or \`Verdict: FAIL\`, then actionable feedback.
  - \`## Questions\` — two or three specific questions when the requirements are unclear.

## As the worker

1. Read TASK.md: the summary is in the frontmatter, requirements in \`## Context\`.
2. If the branch is \`orange-tasks/<id>\`, give it a meaningful name:
   \`orange task update --branch feature/short-name\`.
3. If the requirements are unclear, write \`## Questions\`, run
   \`orange task update --status clarification\`, and wait for the human.
4. Write \`## Plan\`, then \`orange task update --status working\`.
5. Read the project's own rules (AGENTS.md, CONTRIBUTING, …), implement, test, commit.
6. Write \`## Handoff\`, then \`orange task complete\` (= \`--status agent-review\`).
7. Wait. A reviewer works in another window; you are notified of the verdict. On FAIL, read
   \`## Review\`, fix every point, commit, update \`## Handoff\`, and complete again. On PASS you
   are done.

Never push to the remote, never open pull requests, never set \`reviewing\` yourself.
If you cannot go on, explain why in \`## Handoff\` and run \`orange task stuck\`.

## As the reviewer

1. Read \`## Context\`, \`## Plan\` and \`## Handoff\`; look hard at every UNCERTAIN item.
2. Review the change: \`git diff <base>...HEAD\`, with the base your prompt names (e.g. \`origin/main\`). Run the tests.
3. Write \`## Review\`: \`Verdict: PASS\` or \`Verdict: FAIL\` on the first line, then feedback the
   worker can act on without asking you.
   (\`orange task section set Review -\` with the text on standard input.)
4. Ask for the status: PASS → \`orange task update --status reviewing\`; FAIL in round 1 →
   \`--status working\`; FAIL in round 2 → \`--status stuck\`.

All feedback goes into TASK.md — never comment on GitHub.

## As the orchestrator (in the user's terminal)

You scope and split work; each task's own agent plans its implementation.

1. Turn a vague request into a clear one: ask the user, and wait for the answers.
2. Split it into independent tasks that can run in parallel without touching the same code.
3. Create each one: \`orange task create <branch> "<summary>" --context -\` with the
   requirements and constraints on standard input (an empty summary starts the task in
   clarification).
4. Follow progress with \`orange task list\` and \`orange task show <id>\`. A task in
   \`reviewing\` waits for the human: \`orange task merge <id>\` or \`orange task create-pr <id>\`.
`;
