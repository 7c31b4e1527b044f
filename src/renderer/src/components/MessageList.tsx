/**
 * The session's messages, virtualised: only the rows in view are rendered, and their pages
 * are fetched from the host as they scroll in. Transcript content is rendered as text (React
 * escapes it), never as HTML.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef } from 'react';
import { useAppStore } from '../context';
import { fmtTokens, preview } from '../format';

const ROW_HEIGHT = 30;

export function MessageList() {
  const total = useAppStore((s) => s.detail?.summary.messages ?? 0);
  const turnStarts = useAppStore((s) => s.detail?.turnStarts);
  const messages = useAppStore((s) => s.messages);
  const selected = useAppStore((s) => s.selectedMessage);
  const ensureMessages = useAppStore((s) => s.ensureMessages);
  const selectMessage = useAppStore((s) => s.selectMessage);
  const parentRef = useRef<HTMLDivElement>(null);
  const turnOf = useRef(new Map<number, number>());
  turnOf.current = new Map((turnStarts ?? []).map((index, turn) => [index, turn + 1]));

  const virtualizer = useVirtualizer({ count: total, getScrollElement: () => parentRef.current, estimateSize: () => ROW_HEIGHT, overscan: 20 });
  const items = virtualizer.getVirtualItems();
  const first = items[0]?.index ?? 0;
  const last = items[items.length - 1]?.index ?? -1;
  useEffect(() => {
    void ensureMessages(first, last);
  }, [first, last, ensureMessages]);

  return (
    <div className="message-list" ref={parentRef} data-testid="message-list" role="listbox" aria-label="Messages">
      <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
        {items.map((item) => {
          const m = messages.get(item.index);
          const turn = turnOf.current.get(item.index);
          return (
            <div
              key={item.key}
              className={`message-row role-${m?.role ?? 'loading'}${selected === item.index ? ' selected' : ''}${turn ? ' turn-start' : ''}`}
              data-testid="message-row"
              role="option"
              aria-selected={selected === item.index}
              style={{ transform: `translateY(${item.start}px)`, height: ROW_HEIGHT }}
              onClick={() => selectMessage(item.index)}
            >
              <span className="idx">{item.index}</span>
              <span className="turn">{turn ? `T${turn}` : ''}</span>
              <span className="role">{m?.role ?? '…'}</span>
              <span className="tok" title="tokens">{m ? fmtTokens(m.tokens) : ''}</span>
              <span className="preview">{m ? preview(m.parts) : ''}</span>
              {m?.pinned ? <span className="pin" title="pinned">📌</span> : null}
            </div>
          );
        })}
      </div>
    </div>
  );
}
