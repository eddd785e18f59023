export { slack, type SlackOptions } from './slack.js';
export { slackMessage, escapeSlack, type SlackMessage } from './slack-message.js';
