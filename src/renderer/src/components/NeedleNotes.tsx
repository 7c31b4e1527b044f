/**
 * Needles where a person looks (docs/user-guide.md, needles): in the Context view, each needle
 * with the calls at which it left the window (a click selects that call), and every mention in the
 * kept history highlighted; on the chart, a mark at each of those calls (NeedleMarks). Matching
 * is the replay's own (src/core/pattern.ts): text or /regex/, so what is highlighted is what the
 * retention tracker counts. Text is rendered as text, never HTML.
 */
import { Fragment, useMemo, type ReactNode } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { compilePattern, type Pattern } from '../../../core/pattern';
import { useAppStore } from '../context';

/** A needle's mark on the chart and its highlight (styles.css mark.needle-hit uses it, translucent). */
export const NEEDLE_COLOR = '#e64980';

/** The needles as patterns; one that does not compile is left out (the replay names it in its error). */
export function useNeedlePatterns(): readonly Pattern[] {
  const needles = useAppStore(useShallow((s) => s.needles));
  return useMemo(() => {
    const out: Pattern[] = [];
    for (const n of needles) {
      try {
        out.push(compilePattern(n, 'needle'));
      } catch {
        // Shown by the replay's error; nothing to highlight.
      }
    }
    return out;
  }, [needles]);
}

/** `text` with every needle match in a <mark>. */
export function Highlighted({ text, patterns }: { text: string; patterns: readonly Pattern[] }): ReactNode {
  if (patterns.length === 0 || text === '') return text;
  const ranges = patterns.flatMap((p) => p.ranges(text)).sort((a, b) => a[0] - b[0]);
  if (ranges.length === 0) return text;
  const parts: ReactNode[] = [];
  let at = 0;
  for (const [s, e] of ranges) {
    if (s < at) continue;
    parts.push(
      <Fragment key={`t${s}`}>{text.slice(at, s)}</Fragment>,
      <mark key={`m${s}`} className="needle-hit" data-testid="needle-hit">
        {text.slice(s, e)}
      </mark>,
    );
    at = e;
  }
  parts.push(<Fragment key="end">{text.slice(at)}</Fragment>);
  return parts;
}

/** Each needle and the calls at which it left the window, relative to the selected call. */
export function NeedleNotes() {
  const tracks = useAppStore((s) => s.chart?.retention.needles);
  const selected = useAppStore((s) => s.selectedStep);
  const selectStep = useAppStore((s) => s.selectStep);
  if (!tracks || tracks.length === 0) return null;
  return (
    <div className="needle-notes" data-testid="needle-notes">
      {tracks.map((t) => (
        <div key={t.key} className="needle-note" data-testid="needle-note">
          <mark className="needle-hit">{t.key}</mark>{' '}
          {t.firstMessage === null ? (
            <span className="muted">never mentioned in this session</span>
          ) : t.leftAt.length === 0 ? (
            <span>first at message #{t.firstMessage}; never left the window</span>
          ) : (
            <span>
              first at message #{t.firstMessage};{' '}
              {t.leftAt.map((c, i) => (
                <Fragment key={c}>
                  {i > 0 ? ', ' : ''}
                  <button className="link" data-testid="needle-left-at" data-step={c} onClick={() => selectStep(c)}>
                    left the window at call {c}
                  </button>
                </Fragment>
              ))}
              {selected !== null && selected >= t.leftAt[0]! ? <span className="warning"> (this call is after it first left)</span> : null}
            </span>
          )}
        </div>
      ))}
    </div>
  );
}
