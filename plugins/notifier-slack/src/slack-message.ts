import type { Notification, NotificationPriority } from '@orange/core';

const MARKS: Readonly<Record<NotificationPriority, string>> = {
  urgent: ':red_circle: URGENT',
  action: ':large_orange_circle: ACTION',
  warning: ':warning: WARNING',
  info: ':white_circle: INFO',
};

/** A Slack incoming-webhook message body. */
export interface SlackMessage {
  readonly text: string;
  readonly blocks: ReadonlyArray<Record<string, unknown>>;
}

/** Slack reads `&`, `<` and `>` as markup: a summary must not mention @channel or forge a link. */
export function escapeSlack(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Text inside a code span: escaped, and without backticks (which would end the span). */
function code(text: string): string {
  return `\`${escapeSlack(text).replace(/`/g, "'")}\``;
}

/**
 * The message for one notification: a headline with the priority, the task (id, project,
 * branch, summary), the status (or the move), the reason when there is one, the pull request,
 * and the command that attaches to the agent. `text` is the plain fallback Slack shows in alerts.
 */
export function slackMessage(n: Notification): SlackMessage {
  const status = n.from && n.to ? `${escapeSlack(n.from)} → ${escapeSlack(n.to)}` : escapeSlack(n.task.status);
  const blocks: Array<Record<string, unknown>> = [
    { type: 'section', text: { type: 'mrkdwn', text: `*${MARKS[n.priority]}* · ${escapeSlack(n.title)}` } },
    {
      type: 'section',
      fields: [
        { type: 'mrkdwn', text: `*Task*\n${code(n.task.id)} · ${escapeSlack(n.task.project)} · ${code(n.task.branch)}\n${escapeSlack(n.task.summary || '(no summary)')}` },
        { type: 'mrkdwn', text: `*Status*\n${status}` },
      ],
    },
  ];
  if (n.reason) blocks.push({ type: 'section', text: { type: 'mrkdwn', text: `*Reason*\n${escapeSlack(n.reason)}` } });
  const context = [`Attach: ${code(n.task.attach)}`];
  if (n.task.pr_url) context.push(`PR: ${escapeSlack(n.task.pr_url)}`);
  blocks.push({ type: 'context', elements: context.map((text) => ({ type: 'mrkdwn', text })) });
  return { text: `[${n.priority}] ${escapeSlack(n.title)}`, blocks };
}
