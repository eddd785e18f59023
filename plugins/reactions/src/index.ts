export { reactions, type ReactionName } from './reactions.js';
export { ReactionsOptionsSchema, type ReactionsOptionsInput, type ReactionsOptions } from './options.js';
export { ciFeedback, reviewFeedback } from './feedback-text.js';
