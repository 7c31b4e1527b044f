/**
 * `getAccuracy`: how far the session's tokenizer is from what the provider reported, call by
 * call, and how honest the calibration is (fitted and scored on different calls as well as on
 * the same ones; core/tokens/calibrate.ts). A fallback and an unknown model are said, not only
 * logged (docs/architecture.md: every number shown can be explained by another on the same screen).
 */
import { resolveLimits } from '../../core/budget/limits';
import type { Session } from '../../core/model';
import { stepIndices } from '../../core/model';
import { calibrationPoints, calibrationReport } from '../../core/tokens/calibrate';
import { CALIBRATION_BASE, getTokenizer } from '../../core/tokens/index';
import { ApiError, type AccuracyView } from '../../shared/api';
import { countForHost, defaultTokenizerOf } from './counts';

const round1 = (v: number): number => Math.round(v * 10) / 10;

export function accuracyOf(session: Session, tokenizer: string = defaultTokenizerOf(session)): AccuracyView {
  try {
    getTokenizer(tokenizer);
  } catch (e) {
    throw new ApiError('bad_input', `tokenizer: ${e instanceof Error ? e.message : String(e)}`);
  }
  const counts = countForHost(session, tokenizer);
  const steps = stepIndices(session.messages);
  const stepOf = new Map(steps.map((index, step) => [index, step]));
  // The estimate of a call is the request the replay would build for it: what the transcript
  // holds since the last source compaction, plus the fitted unlogged region (calibrated only).
  const calls = calibrationPoints(session, counts)
    .filter((p) => p.y > 0)
    .map((p) => {
      const estimate = Math.round(p.x + counts.unlogged);
      return {
        step: stepOf.get(p.index) ?? -1,
        messageIndex: p.index,
        estimate,
        reported: p.y,
        errorPct: round1(((estimate - p.y) / p.y) * 100),
      };
    });
  const base = tokenizer === CALIBRATION_BASE ? counts : countForHost(session, CALIBRATION_BASE);
  const report = calibrationReport(session, base);
  const limits = resolveLimits({ model: session.model, window: session.reportedContextWindow, provider: session.provider });
  const warnings = [...limits.warnings];
  if (!session.model) warnings.push('the transcript names no model: default limits, and no model family to pick a tokenizer by');
  return {
    tokenizer: counts.tokenizer,
    calls,
    calibration:
      'fallback' in report
        ? null
        : {
            ...report,
            inSampleError: round1(report.inSampleError),
            outOfSampleError: report.outOfSampleError === null ? null : round1(report.outOfSampleError),
          },
    fallback: 'fallback' in report ? report.fallback : null,
    warnings,
  };
}
