import { marked, type Token, type Tokens } from 'marked';
import { h, type ComponentChild, type ComponentChildren, type VNode } from 'preact';
import { blockText, safeHref } from './shown-text';

/**
 * Markdown (TASK.md, questions) as Preact elements, built from marked's lexer tokens — never
 * through HTML: every piece of text becomes a text node, raw HTML in the source is shown as the
 * literal text it is, and a link is a link only when its target is http(s).
 */
export function markdownNodes(source: string): MarkdownNode[] {
  const tokens = marked.lexer(source, { gfm: true });
  return blocks(tokens);
}

/** An element of the rendered markdown (`VNode<any>`: each kind of element has its own props). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type MarkdownNode = VNode<any>;

function blocks(tokens: readonly Token[]): MarkdownNode[] {
  const out: MarkdownNode[] = [];
  tokens.forEach((token, i) => {
    const node = block(token, i);
    if (node) out.push(node);
  });
  return out;
}

function block(token: Token, key: number): MarkdownNode | null {
  switch (token.type) {
    case 'space':
    case 'def':
      return null;
    case 'heading': {
      const t = token as Tokens.Heading;
      const depth = Math.min(6, Math.max(1, t.depth));
      return h(`h${depth}`, { key, class: 'md-heading' }, inline(t.tokens));
    }
    case 'paragraph':
      return h('p', { key }, inline((token as Tokens.Paragraph).tokens));
    case 'text': {
      // A tight list item's text: inline tokens of its own.
      const t = token as Tokens.Text;
      return h('span', { key }, t.tokens ? inline(t.tokens) : text(t.text));
    }
    case 'code': {
      const t = token as Tokens.Code;
      return h('pre', { key, class: 'md-code', 'data-lang': t.lang ? blockText(t.lang) : undefined }, h('code', null, blockText(t.text)));
    }
    case 'blockquote':
      return h('blockquote', { key }, blocks((token as Tokens.Blockquote).tokens));
    case 'hr':
      return h('hr', { key });
    case 'list':
      return list(token as Tokens.List, key);
    case 'table':
      return table(token as Tokens.Table, key);
    case 'html':
      // Raw HTML is shown as what it is: text.
      return h('pre', { key, class: 'md-html' }, blockText(token.raw.replace(/\n+$/, '')));
    default:
      return h('p', { key }, blockText(token.raw));
  }
}

function list(token: Tokens.List, key: number): MarkdownNode {
  const items = token.items.map((item, i) => {
    const children: ComponentChildren[] = [];
    const hasBox = item.tokens.some((t) => t.type === 'checkbox');
    // Older lexers mark a task item without a checkbox token: draw its box all the same.
    if (item.task && !hasBox) children.push(checkbox(item.checked === true, -1));
    item.tokens.forEach((t, j) => {
      if (t.type === 'checkbox') children.push(checkbox((t as Tokens.Checkbox).checked, j));
      else children.push(block(t, j));
    });
    return h('li', { key: i, class: item.task ? 'md-task' : undefined }, children);
  });
  if (token.ordered) {
    const start = typeof token.start === 'number' && token.start !== 1 ? token.start : undefined;
    return h('ol', { key, start }, items);
  }
  return h('ul', { key, class: token.items.some((i) => i.task) ? 'md-tasks' : undefined }, items);
}

function checkbox(checked: boolean, key: number): MarkdownNode {
  return h('input', { key, type: 'checkbox', checked, disabled: true, class: 'md-checkbox' });
}

function table(token: Tokens.Table, key: number): MarkdownNode {
  const align = (a: 'center' | 'left' | 'right' | null) => (a ? { textAlign: a } : undefined);
  return h(
    'div',
    { key, class: 'md-table' },
    h(
      'table',
      null,
      h('thead', null, h('tr', null, token.header.map((cell, i) => h('th', { key: i, style: align(cell.align) }, inline(cell.tokens))))),
      h(
        'tbody',
        null,
        token.rows.map((row, r) => h('tr', { key: r }, row.map((cell, i) => h('td', { key: i, style: align(cell.align) }, inline(cell.tokens))))),
      ),
    ),
  );
}

function inline(tokens: readonly Token[] | undefined): ComponentChild[] {
  if (!tokens) return [];
  return tokens.map((token, key) => inlineToken(token, key));
}

function inlineToken(token: Token, key: number): ComponentChild {
  switch (token.type) {
    case 'text': {
      const t = token as Tokens.Text;
      return t.tokens ? h('span', { key }, inline(t.tokens)) : text(t.text);
    }
    case 'escape':
      return blockText((token as Tokens.Escape).text);
    case 'strong':
      return h('strong', { key }, inline((token as Tokens.Strong).tokens));
    case 'em':
      return h('em', { key }, inline((token as Tokens.Em).tokens));
    case 'del':
      return h('del', { key }, inline((token as Tokens.Del).tokens));
    case 'codespan':
      return h('code', { key }, blockText((token as Tokens.Codespan).text));
    case 'br':
      return h('br', { key });
    case 'link': {
      const t = token as Tokens.Link;
      const href = safeHref(t.href);
      const children = inline(t.tokens);
      return href ? h('a', { key, href, target: '_blank', rel: 'noopener noreferrer nofollow', title: t.title ? blockText(t.title) : undefined }, children) : h('span', { key, class: 'md-link-text' }, children);
    }
    case 'image': {
      // No remote images (the page's CSP allows none): the alt text, a link where the source is http(s).
      const t = token as Tokens.Image;
      const href = safeHref(t.href);
      const label = `🖼 ${decodeEntities(t.text) || 'image'}`;
      return href ? h('a', { key, href, target: '_blank', rel: 'noopener noreferrer nofollow' }, blockText(label)) : h('span', { key }, blockText(label));
    }
    case 'html':
      // Inline HTML (`<b>`, `<script>`) is shown as its literal text.
      return h('span', { key, class: 'md-html-inline' }, blockText(token.raw));
    case 'checkbox':
      return checkbox((token as Tokens.Checkbox).checked, key);
    default:
      return blockText(token.raw);
  }
}

/** Text as written: character references decoded (`&amp;` → `&`), controls made visible. */
function text(raw: string): string {
  return blockText(decodeEntities(raw));
}

const NAMED: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0', copy: '©', reg: '®', hellip: '…', mdash: '—', ndash: '–' };

/** The character references markdown text may carry (a few named ones, and numeric). */
export function decodeEntities(raw: string): string {
  return raw.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,8});/gi, (whole, ref: string) => {
    if (ref[0] === '#') {
      const code = ref[1] === 'x' || ref[1] === 'X' ? Number.parseInt(ref.slice(2), 16) : Number.parseInt(ref.slice(1), 10);
      return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : '\ufffd';
    }
    return NAMED[ref.toLowerCase()] ?? whole;
  });
}

/** The text of TASK.md's `## Questions` section (fenced code skipped), or null when it has none or it is empty. */
export function questionsIn(body: string): string | null {
  const lines = body.split(/\r?\n/);
  const kept: string[] = [];
  let inside = false;
  let fence: string | null = null;
  for (const line of lines) {
    const fenceMatch = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fenceMatch) {
      const marker = fenceMatch[1] as string;
      if (fence === null) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = null;
    } else if (fence === null) {
      const heading = /^\s{0,3}##\s+(.+?)\s*#*\s*$/.exec(line);
      if (heading && !line.trimStart().startsWith('###')) {
        if (inside) break;
        inside = heading[1] === 'Questions';
        continue;
      }
    }
    if (inside) kept.push(line);
  }
  return kept.join('\n').trim() || null;
}
