/**
 * The replay timeline: a scrubber over every call with the compressions (by path), the agent's
 * own compactions and the guard's warn / skip / final / abort marked at their true position, and
 * the stepping controls (the same actions the keys run, see ../keys.ts).
 */
import { useMemo, useRef } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useAppStore } from '../context';
import { fmtInt } from '../format';
import { ROW_H, TIMELINE_ROWS, TIMELINE_WIDTH, timelinePaths } from '../model/timeline-paths';
import { PALETTE } from '../colors';
import { useTheme } from '../theme';

const LABEL_W = 76;

export function ReplayTimeline() {
  const stepCount = useAppStore((s) => s.chart?.stepCount ?? 0);
  const markers = useAppStore((s) => s.chart?.markers);
  const selected = useAppStore((s) => s.selectedStep);
  const playing = useAppStore((s) => s.playing);
  const speed = useAppStore((s) => s.speed);
  const a = useAppStore(
    useShallow((s) => ({
      stepBy: s.stepBy,
      stepToEnd: s.stepToEnd,
      jumpCompression: s.jumpCompression,
      togglePlay: s.togglePlay,
      setSpeed: s.setSpeed,
      selectStep: s.selectStep,
    })),
  );
  const turn = useAppStore((s) => s.stepDetail?.turn);
  const messageIndex = useAppStore((s) => (s.selectedStep === null ? null : (s.detail?.steps[s.selectedStep] ?? null)));
  const track = useRef<HTMLDivElement>(null);

  // One path per row and colour: a layer, not an element per marker (model/timeline-paths.ts).
  const theme = useTheme();
  const paths = useMemo(() => (markers ? timelinePaths(markers, stepCount, PALETTE[theme]) : []), [markers, stepCount, theme]);

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
        <button title="First call (Home)" onClick={() => a.stepToEnd('first')}>
          |◂
        </button>
        <button title="Previous compression (P)" data-testid="prev-compression" onClick={() => a.jumpCompression(-1)}>
          P◂
        </button>
        <button title="Back ten calls (Shift+←)" onClick={() => a.stepBy(-10)}>
          «
        </button>
        <button title="Previous call (←)" data-testid="step-back" onClick={() => a.stepBy(-1)}>
          ‹
        </button>
        <button title="Play / pause (Space)" data-testid="play" aria-pressed={playing} onClick={a.togglePlay}>
          {playing ? '❚❚' : '▶'}
        </button>
        <button title="Next call (→)" data-testid="step-forward" onClick={() => a.stepBy(1)}>
          ›
        </button>
        <button title="Forward ten calls (Shift+→)" onClick={() => a.stepBy(10)}>
          »
        </button>
        <button title="Next compression (N)" data-testid="next-compression" onClick={() => a.jumpCompression(1)}>
          ▸N
        </button>
        <button title="Last call (End)" onClick={() => a.stepToEnd('last')}>
          ▸|
        </button>
        <label className="speed" title="Calls per second while playing">
          <select data-testid="play-speed" value={speed} onChange={(e) => a.setSpeed(Number(e.target.value))}>
            {[1, 2, 5, 10, 25, 50, 100, 200].map((v) => (
              <option key={v} value={v}>
                {v}/s
              </option>
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
          {TIMELINE_ROWS.map((r) => (
            <span key={r.key} style={{ height: ROW_H }}>
              {r.label}
            </span>
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
          <svg
            viewBox={`0 0 ${TIMELINE_WIDTH} ${TIMELINE_ROWS.length * ROW_H}`}
            preserveAspectRatio="none"
            data-testid="timeline-markers"
            data-markers={markers?.length ?? 0}
          >
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
