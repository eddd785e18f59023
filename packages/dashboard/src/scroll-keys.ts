/** The parts of ink's key event the scroll keys read. */
export interface ScrollKey {
  readonly downArrow?: boolean;
  readonly upArrow?: boolean;
  readonly pageDown?: boolean;
  readonly pageUp?: boolean;
}

/**
 * How far a key moves a scrollable view of `length` lines shown `page` at a time: j/k or the
 * arrows a line, Space / PgDn / PgUp a page, g / G to either end; 0 for any other key.
 */
export function scrollStep(input: string, key: ScrollKey, page: number, length: number): number {
  if (key.downArrow || input === 'j') return 1;
  if (key.upArrow || input === 'k') return -1;
  if (key.pageDown || input === ' ') return page;
  if (key.pageUp) return -page;
  if (input === 'g') return -length;
  if (input === 'G') return length;
  return 0;
}
