export { command, substitutePlaceholders, COMMAND_PLACEHOLDERS, type CommandOptions } from './command.js';
