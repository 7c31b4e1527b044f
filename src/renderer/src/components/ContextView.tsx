/**
 * Exactly what the model receives at the selected call, region by region with token counts:
 * system prompt, the unlogged system & tools overhead (inferred, not read), the summary, the kept
 * history (virtualised, fetched by ranges as it scrolls) and the tool definitions. At a
 * compression, the before / after: what was dropped, masked or summarised, and the summary text.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef } from 'react';
import type { StepDetail } from '../../../shared/api';
import { useAppStore } from '../context';
import { REGION_COLOR } from '../colors';
import { fmtInt, preview } from '../format';
import { describeRanges, inRanges, rangeCount, rangeList } from '../model/ranges';
import { LossLedger } from './LossLedger';
import { Highlighted, NeedleNotes, useNeedlePatterns } from './NeedleNotes';

const ROW = 24;

function Region({
  name,
  tokens,
  color,
  note,
  children,
}: {
  name: string;
  tokens: number;
  color: string;
  note?: string;
  children?: React.ReactNode;
}) {
  return (
    <details className="ctx-region" open={tokens > 0 && children !== undefined}>
      <summary>
        <i className="swatch" style={{ background: color }} />
        <span className="ctx-name">{name}</span>
        <span className="ctx-tokens">{fmtInt(tokens)} tokens</span>
        {note ? <span className="muted"> · {note}</span> : null}
      </summary>
      {children}
    </details>
  );
}

/** The kept history's box scrolls past this height. */
const MAX_HISTORY_PX = 220;

function KeptHistory({ d }: { d: StepDetail }) {
  const list = useMemo(() => rangeList(d.context.history.ranges), [d.context.history.ranges]);
  // A message the agent sent as a placeholder shows the placeholder: that is what the model read.
  const sentText = useMemo(() => new Map(d.context.history.sentAs.map((e) => [e.messageIndex, e.text])), [d.context.history.sentAs]);
  const messages = useAppStore((s) => s.messages);
  const ensure = useAppStore((s) => s.ensureMessages);
  const selectMessage = useAppStore((s) => s.selectMessage);
  const needles = useNeedlePatterns();
  const parent = useRef<HTMLDivElement>(null);
  const v = useVirtualizer({ count: list.count, getScrollElement: () => parent.current, estimateSize: () => ROW, overscan: 10 });
  const items = v.getVirtualItems();
  const first = items[0] ? list.at(items[0].index) : 0;
  const last = items.length ? list.at(items[items.length - 1]!.index) : -1;
  useEffect(() => {
    void ensure(first, last);
  }, [first, last, ensure]);
  return (
    // As tall as its rows up to a scrolling box: an empty or short history takes no more room than it needs.
    <div
      className="ctx-history"
      ref={parent}
      data-testid="context-history"
      data-count={list.count}
      style={{ height: Math.min(MAX_HISTORY_PX, list.count * ROW + 2) }}
    >
      <div style={{ height: v.getTotalSize(), position: 'relative' }}>
        {items.map((it) => {
          const index = list.at(it.index);
          const m = messages.get(index);
          const masked = inRanges(d.context.history.masked, index);
          return (
            <div
              key={it.key}
              className={`ctx-row role-${m?.role ?? 'loading'}`}
              style={{ transform: `translateY(${it.start}px)`, height: ROW }}
              onClick={() => selectMessage(index)}
            >
              <span className="idx">#{index}</span>
              <span className="role">{m?.role ?? '…'}</span>
              <span className="tok">{m ? fmtInt(m.tokens) : ''}</span>
              {masked ? <span className="state state-masked">masked</span> : null}
              <bdi className="preview">
                <Highlighted text={sentText.get(index) ?? (m ? preview(m.parts) : '')} patterns={needles} />
              </bdi>
            </div>
          );
        })}
      </div>
    </div>
  );
}

function BeforeAfter({ d }: { d: StepDetail }) {
  const c = d.compression;
  if (!c) return null;
  return (
    <section className="before-after" data-testid="before-after">
      <h4>
        {c.path} compression ({c.strategy}): {fmtInt(c.tokensBefore)} → {fmtInt(c.tokensAfter)} tokens
      </h4>
      <div className="ba-grid">
        <div>
          <h5>Before</h5>
          <p>
            history {describeRanges(c.before)} ({fmtInt(rangeCount(c.before))} messages)
          </p>
          <p className="muted">summary before</p>
          <pre data-testid="summary-before">{c.summaryBefore ?? '(none)'}</pre>
        </div>
        <div>
          <h5>After</h5>
          <p>
            <span className="state state-dropped">dropped</span> {describeRanges(c.dropped)}
            <br />
            <span className="state state-masked">masked</span> {describeRanges(c.masked)}
            <br />
            <span className="state state-summarised">summarised</span> {describeRanges(c.summarised)}
          </p>
          <p className="muted">summary produced</p>
          <pre data-testid="summary-after">{c.summary ?? '(no summary: this strategy drops or masks only)'}</pre>
        </div>
      </div>
    </section>
  );
}

export function ContextView() {
  const d = useAppStore((s) => s.stepDetail);
  const selected = useAppStore((s) => s.selectedStep);
  if (selected === null || !d)
    return (
      <section className="context-view empty" data-testid="context-view">
        {selected === null ? 'No call selected.' : 'Loading…'}
      </section>
    );
  const cx = d.context;
  return (
    <section className="context-view" data-testid="context-view" data-step={d.step}>
      <p className="ctx-total">
        What the model receives at call #{d.step}: <strong data-testid="context-total">{fmtInt(d.request)}</strong> tokens
      </p>
      <NeedleNotes />
      <BeforeAfter d={d} />
      <LossLedger d={d} />
      <Region name="system prompt" tokens={cx.system.tokens} color={REGION_COLOR.system}>
        <pre>{cx.system.text ?? '(the transcript does not log it)'}</pre>
      </Region>
      <Region
        name="unlogged system & tools"
        tokens={cx.unlogged.tokens}
        color={REGION_COLOR.unlogged}
        note="inferred from reported usage, not read from the transcript"
      />
      <Region name="summary" tokens={cx.summary.tokens} color={REGION_COLOR.summary}>
        {cx.summary.text !== null ? <pre data-testid="context-summary">{cx.summary.text}</pre> : undefined}
      </Region>
      <div className="ctx-region open">
        <div className="ctx-summary-line">
          <i className="swatch" style={{ background: REGION_COLOR.history }} />
          <span className="ctx-name">kept history</span>
          <span className="ctx-tokens">{fmtInt(cx.history.tokens)} tokens</span>
          <span className="muted">
            {' '}
            · {fmtInt(cx.history.messages)} messages: {describeRanges(cx.history.ranges)}
          </span>
        </div>
        {cx.history.reduced.length > 0 ? (
          <p className="muted" data-testid="context-reduced">
            tool preflight cut {cx.history.reduced.length} result{cx.history.reduced.length === 1 ? '' : 's'}:{' '}
            {cx.history.reduced
              .slice(0, 6)
              .map((r) => `#${r.messageIndex} ${r.action} ${fmtInt(r.bytesBefore)}→${fmtInt(r.bytesAfter)} B`)
              .join(', ')}
            {cx.history.reduced.length > 6 ? ', …' : ''}
          </p>
        ) : null}
        {cx.history.sentAs.length > 0 ? (
          <p className="muted" data-testid="context-sent-as">
            the agent sent {cx.history.sentAs.length} message{cx.history.sentAs.length === 1 ? '' : 's'} as placeholders at this call (its
            history processor):{' '}
            {cx.history.sentAs
              .slice(0, 3)
              .map((e) => `#${e.messageIndex}`)
              .join(', ')}
            {cx.history.sentAs.length > 3 ? ', …' : ''}
          </p>
        ) : null}
        <KeptHistory d={d} />
      </div>
      <Region name="tool definitions" tokens={cx.tools.tokens} color={REGION_COLOR.tools} note={`${cx.tools.names.length} tools`}>
        <p className="tool-names">
          {cx.tools.names.map((n) => (
            <bdi key={n}>{n}</bdi>
          ))}
        </p>
      </Region>
    </section>
  );
}
