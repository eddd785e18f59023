import { useMemo, useState } from 'preact/hooks';
import type { DiffDetail } from '../../../src/protocol';
import { getJson } from '../api';
import { diffLineKind, splitDiff, type DiffFile } from '../diff-files';
import { useResource } from '../hooks/use-resource';
import { taskPath } from '../route';
import { blockText, inlineText } from '../shown-text';

/** A file this long starts collapsed: the page stays quick on a huge change (open it to read it). */
const LONG_FILE_LINES = 1500;

/** The task's changes against its base: the stat per file, then the unified diff, coloured, one collapsible part per file. */
export function DiffView({ project, id, revision }: { readonly project: string; readonly id: string; readonly revision: number }) {
  const diff = useResource<DiffDetail>((signal) => getJson<DiffDetail>(`${taskPath({ project, id })}/diff`, signal), [project, id, revision]);
  const files = useMemo(() => (diff.value?.diff ? splitDiff(diff.value.diff) : []), [diff.value?.diff]);
  // Which files are open: unset means the default (open unless very long).
  const [open, setOpen] = useState<ReadonlyMap<number, boolean>>(new Map());
  const isOpen = (i: number, file: DiffFile) => open.get(i) ?? file.lines.length <= LONG_FILE_LINES;
  const setAll = (value: boolean) => setOpen(new Map(files.map((_, i) => [i, value])));

  if (!diff.value) {
    return diff.state === 'failed' ? <p class="banner banner-error">{inlineText(diff.error)}</p> : <p class="empty">Reading the diff…</p>;
  }
  const { stat } = diff.value;
  if (!stat && diff.value.diff === null) return <p class="empty" data-testid="diff">No worktree: nothing to diff.</p>;
  const most = Math.max(1, ...(stat?.files ?? []).map((f) => f.added + f.removed));
  return (
    <section class="diff-view" data-testid="diff">
      {diff.state === 'failed' ? <p class="banner banner-error">{inlineText(diff.error)}</p> : null}
      {stat ? (
        <div class="diff-stat" data-testid="diff-stat">
          <p class="diff-total">
            <strong>{stat.ahead}</strong> {stat.ahead === 1 ? 'commit' : 'commits'} ahead · <span class="add">+{stat.added}</span> <span class="del">−{stat.removed}</span> · {stat.files.length} {stat.files.length === 1 ? 'file' : 'files'}
          </p>
          {stat.files.length > 0 ? (
            <table class="diff-files">
              <tbody>
                {stat.files.map((file) => {
                  const at = files.findIndex((f) => f.path === file.path);
                  return (
                    <tr key={file.path}>
                      <td class="diff-file-path">
                        {at >= 0 ? (
                          <button
                            type="button"
                            class="linkish"
                            onClick={() => {
                              setOpen(new Map(open).set(at, true));
                              requestAnimationFrame(() => document.getElementById(`diff-file-${at}`)?.scrollIntoView({ behavior: 'smooth', block: 'start' }));
                            }}
                          >
                            {inlineText(file.path)}
                          </button>
                        ) : (
                          inlineText(file.path)
                        )}
                      </td>
                      <td class="num add">+{file.added}</td>
                      <td class="num del">−{file.removed}</td>
                      <td class="diff-bar-cell" aria-hidden="true">
                        <span class="diff-bar">
                          <span class="diff-bar-add" style={{ width: `${(file.added / most) * 100}%` }} />
                          <span class="diff-bar-del" style={{ width: `${(file.removed / most) * 100}%` }} />
                        </span>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          ) : null}
        </div>
      ) : null}
      {files.length > 0 ? (
        <>
          <div class="tab-toolbar">
            <span class="muted">Unified diff</span>
            <span class="spacer" />
            <button type="button" class="btn small" data-testid="diff-expand" onClick={() => setAll(true)}>
              Expand all
            </button>
            <button type="button" class="btn small" data-testid="diff-collapse" onClick={() => setAll(false)}>
              Collapse all
            </button>
          </div>
          {files.map((file, i) => (
            <details
              key={`${i}:${file.path}`}
              id={`diff-file-${i}`}
              class="diff-file"
              open={isOpen(i, file)}
              data-testid="diff-file"
              data-path={file.path}
              onToggle={(e) => {
                const now = (e.currentTarget as HTMLDetailsElement).open;
                if (now !== isOpen(i, file)) setOpen(new Map(open).set(i, now));
              }}
            >
              <summary>
                <span class="diff-file-name">{inlineText(file.path || '(diff)')}</span>
                <span class="add">+{file.added}</span> <span class="del">−{file.removed}</span>
              </summary>
              {isOpen(i, file) ? <DiffLines lines={file.lines} /> : null}
            </details>
          ))}
        </>
      ) : diff.value.diff !== null ? (
        <p class="empty">No changes.</p>
      ) : null}
    </section>
  );
}

/** One file's lines, each coloured by its kind. */
function DiffLines({ lines }: { readonly lines: readonly string[] }) {
  return (
    <pre class="diff-body">
      {lines.map((line, i) => (
        <span key={i} class={`dl dl-${diffLineKind(line)}`}>
          {blockText(line.replace(/\n/g, '')) || ' '}
          {'\n'}
        </span>
      ))}
    </pre>
  );
}
