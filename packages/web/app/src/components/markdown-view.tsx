import { useMemo } from 'preact/hooks';
import { markdownNodes } from '../markdown';

/** Markdown drawn as elements built from its tokens (never as HTML). */
export function MarkdownView({ source, testId = 'markdown' }: { readonly source: string; readonly testId?: string }) {
  const nodes = useMemo(() => markdownNodes(source), [source]);
  return (
    <div class="markdown" data-testid={testId}>
      {nodes}
    </div>
  );
}
