/**
 * The selected message in full: every part as text, tool calls with their arguments, usage, and
 * on request the raw record the file had for it (text, never HTML).
 */
import { useAppStore } from '../context';
import { fmtInt } from '../format';
import { useToolLink } from './use-tool-link';

function RawRecord({ index }: { index: number }) {
  const raw = useAppStore((s) => (s.rawRecord?.index === index ? s.rawRecord : null));
  const load = useAppStore((s) => s.loadRawRecord);
  return (
    <details className="raw-record" onToggle={(e) => (e.currentTarget.open && !raw ? void load(index) : undefined)}>
      <summary>Source record{raw?.line ? ` (line ${raw.line})` : ''}</summary>
      {raw ? (
        raw.record !== null ? (
          <pre data-testid="raw-record">
            <bdi>{raw.record}</bdi>
          </pre>
        ) : (
          <p className="note">This format keeps no record per message (the file is one JSON document).</p>
        )
      ) : (
        <p className="note">Loading…</p>
      )}
    </details>
  );
}

export function MessageDetail() {
  const index = useAppStore((s) => s.inspectedMessage);
  const m = useAppStore((s) => (s.inspectedMessage === null ? undefined : s.messages.get(s.inspectedMessage)));
  const follow = useToolLink();
  if (index === null) return <aside className="message-detail empty">Select a message to see it in full.</aside>;
  if (!m) return <aside className="message-detail empty">Loading…</aside>;
  return (
    <aside className="message-detail" data-testid="message-detail">
      <header>
        <strong>#{m.index}</strong> <span className={`role role-${m.role}`}>{m.role}</span> · {fmtInt(m.tokens)} tokens
        {m.timestamp ? <> · {new Date(m.timestamp).toISOString().replace('T', ' ').slice(0, 19)}</> : null}
      </header>
      {m.usage ? (
        <p className="usage">
          reported: input {fmtInt(m.usage.input)} · cache read {fmtInt(m.usage.cacheRead)} · cache write {fmtInt(m.usage.cacheWrite)} ·
          output {fmtInt(m.usage.output)} ({m.usage.convention} convention)
        </p>
      ) : null}
      {m.parts.map((p, i) => (
        <section key={i} className={`part part-${p.kind}`}>
          {p.kind === 'text' ? (
            <pre>
              <bdi>{p.text}</bdi>
            </pre>
          ) : null}
          {p.kind === 'reasoning' ? <pre className="reasoning">{p.redacted ? '[redacted reasoning]' : <bdi>{p.text}</bdi>}</pre> : null}
          {p.kind === 'tool_call' ? (
            <>
              <h4>
                tool call <bdi>{p.name}</bdi>{' '}
                <code>
                  <bdi>{p.id}</bdi>
                </code>{' '}
                <button className="link" data-testid="detail-link-to-result" onClick={() => void follow(m.index, p.id, 'call')}>
                  → result
                </button>
              </h4>
              <pre>
                <bdi>{p.args}</bdi>
              </pre>
            </>
          ) : null}
          {p.kind === 'tool_result' ? (
            <>
              <h4>
                {p.isError ? 'tool error' : 'tool result'}{' '}
                <code>
                  <bdi>{p.callId}</bdi>
                </code>{' '}
                <button className="link" data-testid="detail-link-to-call" onClick={() => void follow(m.index, p.callId, 'result')}>
                  ← call
                </button>
              </h4>
              <pre>
                <bdi>{p.text}</bdi>
              </pre>
            </>
          ) : null}
          {p.kind === 'media' ? (
            <p>
              [{p.mediaType}
              {p.bytes !== undefined ? `, ${fmtInt(p.bytes)} bytes` : ''}]
            </p>
          ) : null}
        </section>
      ))}
      {m.truncated ? <p className="note">Long parts are shortened here; the full text is kept.</p> : null}
      <RawRecord key={m.index} index={m.index} />
    </aside>
  );
}
