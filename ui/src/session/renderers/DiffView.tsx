import { Columns2, Rows2 } from "lucide-react";
import { memo, useMemo, useState } from "react";

import type { DiffHunk, DiffLine, FileDiff } from "../../generated/protocol";
import { plural } from "../../format";
import { highlight, languageForPath } from "../highlight";

/** More lines than this are not rendered (the file is on disk). */
export const MAX_DIFF_LINES = 2000;

export type DiffLayout = "unified" | "split";

/** One row of the side-by-side view. */
export interface SplitRow {
  left: DiffLine | null;
  right: DiffLine | null;
}

/**
 * Pairs a hunk's lines for side-by-side display: context on both sides; a
 * run of removed lines followed by a run of added lines side by side, the
 * shorter run padded with blanks.
 */
export function splitRows(hunk: DiffHunk): SplitRow[] {
  const rows: SplitRow[] = [];
  let removed: DiffLine[] = [];
  let added: DiffLine[] = [];
  const flush = () => {
    const n = Math.max(removed.length, added.length);
    for (let i = 0; i < n; i++) rows.push({ left: removed[i] ?? null, right: added[i] ?? null });
    removed = [];
    added = [];
  };
  for (const line of hunk.lines) {
    if (line.kind === "removed") {
      if (added.length > 0) flush();
      removed.push(line);
    } else if (line.kind === "added") {
      added.push(line);
    } else {
      flush();
      rows.push({ left: line, right: line });
    }
  }
  flush();
  return rows;
}

const SIGN = { context: " ", removed: "-", added: "+" } as const;

const LAYOUTS = [
  { value: "unified", label: "Unified", title: "Unified", Icon: Rows2 },
  { value: "split", label: "Split", title: "Side by side", Icon: Columns2 },
] as const;

function Code({ text, language }: { text: string; language: string | null }) {
  // highlight.js escapes every character of the source.
  return <code className="diff-code" dangerouslySetInnerHTML={{ __html: highlight(text, language) || " " }} />;
}

function UnifiedHunk({ hunk, language }: { hunk: DiffHunk; language: string | null }) {
  return (
    <>
      {hunk.lines.map((line, i) => (
        <tr key={i} className={`diff-line diff-${line.kind}`}>
          <td className="diff-num">{line.old_line ?? ""}</td>
          <td className="diff-num">{line.new_line ?? ""}</td>
          <td className="diff-sign">{SIGN[line.kind]}</td>
          <td className="diff-text">
            <Code text={line.text} language={language} />
          </td>
        </tr>
      ))}
    </>
  );
}

function SplitHunk({ hunk, language }: { hunk: DiffHunk; language: string | null }) {
  return (
    <>
      {splitRows(hunk).map((row, i) => (
        <tr key={i} className="diff-line">
          <td className="diff-num">{row.left?.old_line ?? ""}</td>
          <td className={`diff-text diff-half ${row.left ? `diff-${row.left.kind}` : "diff-empty"}`}>
            {row.left && <Code text={row.left.text} language={language} />}
          </td>
          <td className="diff-num">{row.right?.new_line ?? ""}</td>
          <td className={`diff-text diff-half ${row.right ? `diff-${row.right.kind}` : "diff-empty"}`}>
            {row.right && <Code text={row.right.text} language={language} />}
          </td>
        </tr>
      ))}
    </>
  );
}

/** Hunks cut so that at most `max` lines are rendered. */
export function capHunks(hunks: readonly DiffHunk[], max: number): { hunks: DiffHunk[]; hidden: number } {
  const out: DiffHunk[] = [];
  let used = 0;
  let hidden = 0;
  for (const hunk of hunks) {
    if (used >= max) {
      hidden += hunk.lines.length;
      continue;
    }
    const room = max - used;
    if (hunk.lines.length <= room) {
      out.push(hunk);
      used += hunk.lines.length;
    } else {
      out.push({ ...hunk, lines: hunk.lines.slice(0, room) });
      hidden += hunk.lines.length - room;
      used = max;
    }
  }
  return { hunks: out, hidden };
}

/**
 * A file change from the backend's structured hunks, syntax-highlighted by
 * the file's extension, unified or side by side.
 */
export const DiffView = memo(function DiffView({
  diff,
  initialLayout = "unified",
  maxLines = MAX_DIFF_LINES,
}: {
  diff: FileDiff;
  initialLayout?: DiffLayout;
  /** The most lines drawn (tests draw a small cap: 2,000 rows take seconds in jsdom). */
  maxLines?: number;
}) {
  const [layout, setLayout] = useState<DiffLayout>(initialLayout);
  const language = languageForPath(diff.path);
  const { hunks, hidden } = useMemo(() => capHunks(diff.hunks, maxLines), [diff.hunks, maxLines]);
  return (
    <div className="diff" data-testid="diff" data-layout={layout}>
      <div className="diff-head">
        <span className="diff-path">{diff.path}</span>
        {diff.created && <span className="pill">new file</span>}
        <span className="diff-stat">
          <span className="add">+{diff.additions}</span> <span className="del">−{diff.deletions}</span>
        </span>
        <span className="segmented" role="group" aria-label="Diff layout">
          {LAYOUTS.map(({ value, label, title, Icon }) => (
            <button
              key={value}
              type="button"
              aria-pressed={layout === value}
              title={title}
              data-testid={`diff-${value}`}
              onClick={() => setLayout(value)}
            >
              <Icon size={14} aria-hidden="true" /> {label}
            </button>
          ))}
        </span>
      </div>
      {hunks.length === 0 ? (
        <p className="muted small">No changes.</p>
      ) : (
        <div className="diff-scroll">
          <table className="diff-table">
            {hunks.map((hunk, i) => (
              <tbody key={i}>
                <tr className="diff-hunk-head">
                  <td colSpan={4}>
                    @@ -{hunk.old_start},{hunk.old_lines} +{hunk.new_start},{hunk.new_lines} @@
                  </td>
                </tr>
                {layout === "unified" ? (
                  <UnifiedHunk hunk={hunk} language={language} />
                ) : (
                  <SplitHunk hunk={hunk} language={language} />
                )}
              </tbody>
            ))}
          </table>
        </div>
      )}
      {hidden > 0 && <p className="muted small" data-testid="diff-hidden">… {plural(hidden, "more line", "more lines")} not shown</p>}
    </div>
  );
});
