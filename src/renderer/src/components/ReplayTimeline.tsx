/**
 * The replay timeline: a scrubber over every call with the compressions (by path), the agent's
 * own compactions and the guard's warn / skip / final / abort marked at their true position, and
 * the stepping controls (the same actions the keys run, see ../keys.ts).
 */
import { useMemo, useRef } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { ChartMarker } from '../../../shared/api';
import { useAppStore } from '../context';
import { MARKER_COLOR, STATUS_COLOR } from '../colors';
import { fmtInt } from '../format';

const KIND_COLOR: Record<ChartMarker['kind'], string> = {
  compression: MARKER_COLOR.compression,
  'source-compaction': MARKER_COLOR['source-compaction'],
  warn: STATUS_COLOR.warn,
  skip: STATUS_COLOR.skip,
  final: STATUS_COLOR.final,
  abort: STATUS_COLOR.abort,
};
/** Rows of the track, top to bottom; compressions get one row per path. */
const ROWS: { key: string; label: string; match: (m: ChartMarker) => boolean }[] = [
  { key: 'proactive', label: 'proactive', match: (m) => m.kind === 'compression' && m.path === 'proactive' },
  { key: 'emergency', label: 'emergency', match: (m) => m.kind === 'compression' && m.path === 'emergency' },
  { key: 'async', label: 'async', match: (m) => m.kind === 'compression' && (m.path === 'async' || m.path === 'strategy') },
  { key: 'source', label: 'agent', match: (m) => m.kind === 'source-compaction' },
  { key: 'guard', label: 'guard', match: (m) => m.kind === 'warn' || m.kind === 'skip' || m.kind === 'final' || m.kind === 'abort' },
];
const ROW_H = 8;
const LABEL_W = 62;

export function ReplayTimeline() {
  const stepCount = useAppStore((s) => s.chart?.stepCount ?? 0);
  const markers = useAppStore((s) => s.chart?.markers);
  const selected = useAppStore((s) => s.selectedStep);
  const playing = useAppStore((s) => s.playing);
  const speed = useAppStore((s) => s.speed);
  const a = useAppStore(useShallow((s) => ({ stepBy: s.stepBy, stepToEnd: s.stepToEnd, jumpCompression: s.jumpCompression, togglePlay: s.togglePlay, setSpeed: s.setSpeed, selectStep: s.selectStep })));
  const turn = useAppStore((s) => s.stepDetail?.turn);
  const messageIndex = useAppStore((s) => (s.selectedStep === null ? null : (s.detail?.steps[s.selectedStep] ?? null)));
  const track = useRef<HTMLDivElement>(null);

  // One path per row and colour: a layer, not an element per marker.
  const paths = useMemo(() => {
    if (!markers || stepCount === 0) return [];
    const out: { d: string; color: string; key: string }[] = [];
    ROWS.forEach((row, r) => {
      const byColor = new Map<string, string>();
      for (const m of markers) {
        if (!row.match(m)) continue;
        // A run of calls with one status (until) is one band from its first call to its last.
        const x = (m.step / stepCount) * 1000;
        const w = Math.max(0.6, (((m.until ?? m.step) + 1 - m.step) / stepCount) * 1000);
        const color = KIND_COLOR[m.kind];
        byColor.set(color, `${byColor.get(color) ?? ''}M${x.toFixed(2)} ${r * ROW_H + 1}h${w.toFixed(2)}v${ROW_H - 2}h${(-w).toFixed(2)}z`);
      }
      for (const [color, d] of byColor) out.push({ d, color, key: `${row.key}-${color}` });
    });
    return out;
  }, [markers, stepCount]);

  const scrubTo = (clientX: number): void => {
    const el = track.current;
    if (!el || stepCount === 0) return;
    const r = el.getBoundingClientRect();
    a.selectStep(Math.floor(((clientX - r.left) / r.width) * stepCount));
  };

  const cursor = selected === null || stepCount === 0 ? null : ((selected + 0.5) / stepCount) * 100;
  return (
    <section className="replay-timeline" data-testid="replay-timeline" aria-label="Replay timeline">
      <div className="timeline-controls">
        <button title="First call (Home)" onClick={() => a.stepToEnd('first')}>|◂</button>
        <button title="Previous compression (P)" data-testid="prev-compression" onClick={() => a.jumpCompression(-1)}>P◂</button>
        <button title="Back ten calls (Shift+←)" onClick={() => a.stepBy(-10)}>«</button>
        <button title="Previous call (←)" data-testid="step-back" onClick={() => a.stepBy(-1)}>‹</button>
        <button title="Play / pause (Space)" data-testid="play" aria-pressed={playing} onClick={a.togglePlay}>{playing ? '❚❚' : '▶'}</button>
        <button title="Next call (→)" data-testid="step-forward" onClick={() => a.stepBy(1)}>›</button>
        <button title="Forward ten calls (Shift+→)" onClick={() => a.stepBy(10)}>»</button>
        <button title="Next compression (N)" data-testid="next-compression" onClick={() => a.jumpCompression(1)}>▸N</button>
        <button title="Last call (End)" onClick={() => a.stepToEnd('last')}>▸|</button>
        <label className="speed" title="Calls per second while playing">
          <select data-testid="play-speed" value={speed} onChange={(e) => a.setSpeed(Number(e.target.value))}>
            {[1, 2, 5, 10, 25, 50, 100, 200].map((v) => (
              <option key={v} value={v}>{v}/s</option>
            ))}
          </select>
        </label>
        <span className="timeline-position" data-testid="timeline-position">
          {selected === null ? 'no call selected' : `call ${fmtInt(selected)} of ${fmtInt(stepCount)}`}
          {turn !== undefined && selected !== null ? ` · turn ${turn}` : ''}
          {messageIndex !== null ? ` · message #${messageIndex}` : ''}
        </span>
      </div>
      <div className="timeline-track">
        <div className="timeline-labels" style={{ width: LABEL_W }}>
          {ROWS.map((r) => (
            <span key={r.key} style={{ height: ROW_H }}>{r.label}</span>
          ))}
        </div>
        <div
          className="timeline-scrub"
          ref={track}
          role="slider"
          aria-label="Selected call"
          aria-valuemin={0}
          aria-valuemax={Math.max(0, stepCount - 1)}
          aria-valuenow={selected ?? 0}
          tabIndex={0}
          onPointerDown={(e) => {
            e.currentTarget.setPointerCapture(e.pointerId);
            scrubTo(e.clientX);
          }}
          onPointerMove={(e) => {
            if (e.buttons & 1) scrubTo(e.clientX);
          }}
        >
          <svg viewBox={`0 0 1000 ${ROWS.length * ROW_H}`} preserveAspectRatio="none" data-testid="timeline-markers" data-markers={markers?.length ?? 0}>
            {paths.map((p) => (
              <path key={p.key} d={p.d} fill={p.color} stroke={p.color} strokeWidth={1} vectorEffect="non-scaling-stroke" />
            ))}
          </svg>
          {cursor !== null ? <div className="timeline-cursor" style={{ left: `${cursor}%` }} /> : null}
        </div>
      </div>
    </section>
  );
}
