/**
 * Estimate vs reported: per call the active tokenizer's estimate against the provider's reported
 * prompt and the error, the calibrated fit (ratio, overhead, in- and out-of-sample error), why a
 * calibrated tokenizer fell back, and unknown-model warnings.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef } from 'react';
import { useAppStore } from '../context';
import { fmtInt } from '../format';
import { EstimatePlot } from './EstimatePlot';

export function EstimateAccuracy() {
  const a = useAppStore((s) => s.accuracy);
  const error = useAppStore((s) => s.accuracyError);
  const load = useAppStore((s) => s.loadAccuracy);
  const currentId = useAppStore((s) => s.currentId);
  const selectStep = useAppStore((s) => s.selectStep);
  const selected = useAppStore((s) => s.selectedStep);
  const parent = useRef<HTMLDivElement>(null);
  useEffect(() => {
    void load();
  }, [load, currentId]);
  const v = useVirtualizer({ count: a?.calls.length ?? 0, getScrollElement: () => parent.current, estimateSize: () => 20, overscan: 10 });
  if (!a)
    return (
      <section className="estimate-accuracy empty" data-testid="estimate-accuracy">
        {error ? `Accuracy unavailable: ${error}` : 'Loading…'}
      </section>
    );
  const cal = a.calibration;
  return (
    <section className="estimate-accuracy" data-testid="estimate-accuracy">
      <header>
        <strong>{a.tokenizer}</strong> against the provider's reported prompt, {fmtInt(a.calls.length)} calls
        {a.fallback ? (
          <p className="warning" data-testid="accuracy-fallback">
            Calibrated tokenizer fell back: {a.fallback}
          </p>
        ) : null}
      </header>
      {cal ? (
        <p data-testid="accuracy-calibration">
          calibrated fit: reported ≈ {cal.ratio.toFixed(3)} × estimate + {fmtInt(cal.overhead)} · in-sample error{' '}
          {cal.inSampleError.toFixed(1)}% · out-of-sample{' '}
          {cal.outOfSampleError === null ? 'n/a (too few calls)' : `${cal.outOfSampleError.toFixed(1)}%`} ({fmtInt(cal.calls)} calls)
        </p>
      ) : (
        <p className="muted">No calibrated fit.</p>
      )}
      {a.warnings.map((w, i) => (
        <p key={i} className="warning" data-testid="accuracy-warning">
          {w}
        </p>
      ))}
      <EstimatePlot view={a} selectedStep={selected} onSelect={selectStep} />
      <div className="acc-head">
        <span>call</span>
        <span>message</span>
        <span>estimate</span>
        <span>reported</span>
        <span>error</span>
      </div>
      <div className="acc-list" ref={parent}>
        <div style={{ height: v.getTotalSize(), position: 'relative' }}>
          {v.getVirtualItems().map((it) => {
            const c = a.calls[it.index]!;
            return (
              <div
                key={it.key}
                className={`acc-row${selected === c.step ? ' selected' : ''}${Math.abs(c.errorPct) > 10 ? ' off' : ''}`}
                style={{ transform: `translateY(${it.start}px)` }}
                onClick={() => selectStep(c.step)}
              >
                <span>#{c.step}</span>
                <span>#{c.messageIndex}</span>
                <span>{fmtInt(c.estimate)}</span>
                <span>{fmtInt(c.reported)}</span>
                <span>
                  {c.errorPct > 0 ? '+' : ''}
                  {c.errorPct.toFixed(1)}%
                </span>
              </div>
            );
          })}
        </div>
      </div>
    </section>
  );
}
