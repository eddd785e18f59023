export { command, substitutePlaceholders, substituteHeadlessPlaceholders, commandHeadlessResult, COMMAND_PLACEHOLDERS, HEADLESS_PLACEHOLDERS, type CommandOptions } from './command.js';
