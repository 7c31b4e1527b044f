/**
 * The session's messages grouped by turn (a header where each turn begins), virtualised: only
 * rows in view render, their pages fetched as they scroll in. Per message: tokens under the
 * active tokenizer, the provider's reported prompt for a call, a tool call's link to its result
 * (and back), and its state at the selected call (in window, summarised, masked, dropped) as a
 * mark. Pin / unpin re-runs the replay. Transcript text is text, isolated for bidi.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef } from 'react';
import type { MessageState, MessageView } from '../../../shared/api';
import { useAppStore } from '../context';
import { fmtTokens, preview } from '../format';
import { messageStateAt } from '../model/selection';
import { turnRows } from '../model/turn-rows';
import { useToolLink } from './use-tool-link';
import { SubagentRow, useLinkedSubagents } from './SubagentLinks';

const ROW_HEIGHT = 26;
const STATE_MARK: Record<MessageState, string> = { window: '●', summarised: 'S', masked: 'M', dropped: '✕', future: '·' };
const STATE_TITLE: Record<MessageState, string> = {
  window: 'in the window at the selected call',
  summarised: 'folded into the summary at the selected call',
  masked: 'masked (a placeholder replaces it) at the selected call',
  dropped: 'dropped from the window at the selected call',
  future: 'not yet written at the selected call',
};

/** What the marks before each message mean, one line above the list (the rows' titles say it too). */
const LEGEND_STATES: readonly MessageState[] = ['window', 'summarised', 'masked', 'dropped'];
export function MarksLegend() {
  return (
    <div className="marks-legend muted" data-testid="marks-legend">
      {LEGEND_STATES.map((st) => (
        <span key={st}>
          <span className={`mark state-${st}`}>{STATE_MARK[st]}</span> {st === 'window' ? 'in the window' : st}
        </span>
      ))}{' '}
      <span>at the selected call</span>
    </div>
  );
}

export const reportedPrompt = (m: MessageView): number | null => (m.usage ? m.usage.input + m.usage.cacheRead + m.usage.cacheWrite : null);

function ToolLinks({ m }: { m: MessageView }) {
  const follow = useToolLink();
  const links: { id: string; side: 'call' | 'result'; name: string }[] = [];
  for (const p of m.parts) {
    if (p.kind === 'tool_call') links.push({ id: p.id, side: 'call', name: p.name });
    else if (p.kind === 'tool_result') links.push({ id: p.callId, side: 'result', name: '' });
  }
  if (links.length === 0) return null;
  return (
    <span className="tool-links">
      {links.slice(0, 3).map((l) => (
        <button
          key={`${l.side}-${l.id}`}
          className="link"
          data-testid={l.side === 'call' ? 'link-to-result' : 'link-to-call'}
          title={l.side === 'call' ? `go to the result of ${l.id}` : `go to the call ${l.id}`}
          onClick={(e) => {
            e.stopPropagation();
            void follow(m.index, l.id, l.side);
          }}
        >
          {l.side === 'call' ? (
            <>
              → <bdi>{l.name}</bdi> result
            </>
          ) : (
            '← call'
          )}
        </button>
      ))}
    </span>
  );
}

export function TurnList() {
  const total = useAppStore((s) => s.detail?.summary.messages ?? 0);
  const turnStarts = useAppStore((s) => s.detail?.turnStarts);
  const messages = useAppStore((s) => s.messages);
  const inspected = useAppStore((s) => s.inspectedMessage);
  const states = useAppStore((s) => s.stepDetail?.messageStates);
  const ensureMessages = useAppStore((s) => s.ensureMessages);
  const selectMessage = useAppStore((s) => s.selectMessage);
  const setPinned = useAppStore((s) => s.setPinned);
  const parentRef = useRef<HTMLDivElement>(null);
  const subagents = useLinkedSubagents();
  const rows = useMemo(
    () =>
      turnRows(
        total,
        turnStarts ?? [],
        subagents.map((s) => s.spawnedAt!),
      ),
    [total, turnStarts, subagents],
  );

  const virtualizer = useVirtualizer({
    count: rows.count,
    getScrollElement: () => parentRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 20,
  });
  const items = virtualizer.getVirtualItems();
  const firstRow = items[0]?.index ?? 0;
  const lastRow = items[items.length - 1]?.index ?? -1;
  useEffect(() => {
    const messageOf = (r: ReturnType<typeof rows.at>): number => (r.kind === 'turn' ? r.first : r.kind === 'subagent' ? r.after : r.index);
    void ensureMessages(messageOf(rows.at(firstRow)), messageOf(rows.at(Math.max(firstRow, lastRow))));
  }, [firstRow, lastRow, rows, ensureMessages]);
  // The list follows the selection: the inspected message scrolls into view. A row already in
  // view is left alone. Rows are all ROW_HEIGHT high, so the offset that shows a row (at the
  // nearer edge, as align 'auto') is arithmetic; it is written at the next animation frame, where
  // the frame lays the page out anyway. scrollToIndex read the list's scroll height (a layout of
  // the page just changed) and then checked its landing frame by frame, ~6 ms of every step.
  useEffect(() => {
    if (inspected === null || inspected >= total) return;
    const row = rows.rowOf(inspected);
    const top = virtualizer.scrollOffset;
    const height = virtualizer.scrollRect?.height;
    if (top === null || height === undefined) {
      virtualizer.scrollToIndex(row, { align: 'auto' });
      return;
    }
    if (row * ROW_HEIGHT >= top && (row + 1) * ROW_HEIGHT <= top + height) return;
    const wanted = row * ROW_HEIGHT < top ? row * ROW_HEIGHT : (row + 1) * ROW_HEIGHT - height;
    const to = Math.max(0, Math.min(rows.count * ROW_HEIGHT - height, wanted));
    const frame = requestAnimationFrame(() => {
      if (parentRef.current) parentRef.current.scrollTop = to;
    });
    return () => cancelAnimationFrame(frame);
  }, [inspected, rows, total, virtualizer]);

  return (
    <div className="turn-list" ref={parentRef} data-testid="turn-list" role="listbox" aria-label="Messages by turn">
      <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
        {items.map((item) => {
          const row = rows.at(item.index);
          const style = { transform: `translateY(${item.start}px)`, height: ROW_HEIGHT };
          if (row.kind === 'subagent') return <SubagentRow key={item.key} subagent={subagents[row.k]} style={style} />;
          if (row.kind === 'turn') {
            return (
              <div key={item.key} className="turn-header" data-testid="turn-header" style={style} onClick={() => selectMessage(row.first)}>
                Turn {row.turn} <span className="muted">from message #{row.first}</span>
              </div>
            );
          }
          const m = messages.get(row.index);
          const state = states ? messageStateAt(states, row.index) : null;
          const reported = m ? reportedPrompt(m) : null;
          return (
            <div
              key={item.key}
              className={`message-row role-${m?.role ?? 'loading'}${inspected === row.index ? ' selected' : ''}${state ? ` state-${state}` : ''}`}
              data-testid="message-row"
              data-index={row.index}
              data-state={state ?? ''}
              role="option"
              aria-selected={inspected === row.index}
              style={style}
              onClick={() => selectMessage(row.index)}
            >
              <span className={`mark state-${state ?? 'none'}`} title={state ? STATE_TITLE[state] : ''} data-testid="message-state">
                {state ? STATE_MARK[state] : ''}
              </span>
              <span className="idx">{row.index}</span>
              <span className="role">{m?.role ?? '…'}</span>
              <span className="tok" title="tokens under the active tokenizer">
                {m ? fmtTokens(m.tokens) : ''}
              </span>
              <span className="rep" title="prompt tokens the provider reported for this call (input + cache read + cache write)">
                {reported !== null ? `⇡${fmtTokens(reported)}` : ''}
              </span>
              <bdi className="preview">{m ? preview(m.parts) : ''}</bdi>
              {m ? <ToolLinks m={m} /> : null}
              {m ? (
                <button
                  className={`pin${m.pinned ? ' pinned' : ''}`}
                  data-testid="pin"
                  aria-pressed={m.pinned}
                  title={m.pinned ? 'Unpin (strategies may drop it again)' : 'Pin: every strategy keeps it'}
                  onClick={(e) => {
                    e.stopPropagation();
                    void setPinned(m.index, !m.pinned);
                  }}
                >
                  {m.pinned ? 'pinned' : 'pin'}
                </button>
              ) : null}
            </div>
          );
        })}
      </div>
    </div>
  );
}
