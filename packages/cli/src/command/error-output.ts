import { stripVTControlCharacters } from 'node:util';
import { terminalJson } from '@orange/core';
import { writeStderr, writeStdout } from '../gateway/served-call.js';
import { clip } from '../output/render.js';

/** Exit codes: 0 ok, 1 refused or failed, 2 bad usage. */
export const EXIT_REFUSED = 1;
export const EXIT_USAGE = 2;

/** Longest message printed for people; --json carries the whole of it. */
const MESSAGE_LIMIT = 1000;

/**
 * The one error format: one safe line on stderr (a message quotes branches, statuses and plugin
 * errors, so it is cleaned and clipped like any cell), or `{"error","code"}` on stdout with --json.
 */
export function writeError(message: string, code: string, json: boolean): void {
  if (json) writeStdout(`${terminalJson({ error: message, code })}\n`);
  else writeStderr(`orange: ${clip(message, MESSAGE_LIMIT)}\n`);
}

/** oclif's flag-rule failures (`exclusive`, `dependsOn`, `exactlyOne`, …) open with this line. */
const FLAG_RULES_FAILED = /^The following errors? occurred:\s*\n/;

/** Each of oclif's flag-rule reasons, said as Orange says a usage error. */
const FLAG_RULES: ReadonlyArray<readonly [RegExp, (...names: string[]) => string]> = [
  // `--project=demo cannot also be provided when using --all`: the value is noise here.
  [/^--([\w-]+)(?:=.*)? cannot also be provided when using --([\w-]+)$/s, (other, flag) => `--${flag} and --${other} cannot be used together; pass one of them`],
  [/^Missing required flag (?:--)?([\w-]+)$/, (flag) => `--${flag} is required`],
  [/^All of the following must be provided when using --([\w-]+): (.+)$/, (flag, list) => `--${flag} needs ${both(list)}`],
  [/^One of the following must be provided when using --([\w-]+): (.+)$/, (flag, list) => `--${flag} needs one of ${either(list)}`],
  [/^Only the following can be provided when using --([\w-]+): (.+)$/, (flag, list) => `--${flag} can only be used with ${both(list)}`],
  [/^Exactly one of the following must be provided: (.+)$/, (list) => `pass exactly one of ${either(list)}`],
  [/^At least one of the following must be provided: (.+)$/, (list) => `pass at least one of ${either(list)}`],
];

const names = (list: string): string[] => list.split(/,\s*/).filter((name) => name !== '');
const both = (list: string): string => joinNames(names(list), 'and');
const either = (list: string): string => joinNames(names(list), 'or');
const joinNames = (all: string[], word: string): string => (all.length < 2 ? all.join('') : `${all.slice(0, -1).join(', ')} ${word} ${all.at(-1)}`);

/**
 * A usage error from oclif's parser in Orange's words. Flag-rule failures come as a heading and a
 * dimmed list ("The following error occurred: --all=true cannot also be provided when using
 * --project"); they become one sentence per reason (`--all and --project cannot be used together;
 * pass one of them`). Any other parse error keeps oclif's text, without its "See more help" line.
 */
export function usageMessage(oclifMessage: string): string {
  const text = stripVTControlCharacters(oclifMessage).replace(/\s*See more help with --help\s*$/, '');
  if (!FLAG_RULES_FAILED.test(text)) return text;
  const reasons = text
    .replace(FLAG_RULES_FAILED, '')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  return reasons
    .map((reason) => {
      for (const [pattern, say] of FLAG_RULES) {
        const match = pattern.exec(reason);
        if (match) return say(...match.slice(1));
      }
      return reason;
    })
    .join('; ');
}
