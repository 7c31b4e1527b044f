/**
 * What the chart's hover card and the guard status say: the reason for every status (ok included,
 * as request against the enforced limit), and S3's projected request (`pending`) beside what a
 * budget used. Rendered to markup in Node (no DOM needed): the text a person reads.
 */
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { GuardStatus } from '../../../src/renderer/src/components/GuardStatus';
import { StoreProvider } from '../../../src/renderer/src/context';
import { bucketReason } from '../../../src/renderer/src/model/hover';
import { createAppStore } from '../../../src/renderer/src/store';
import type { ChartView } from '../../../src/shared/api';
import { chartView, fakeApi, stepDetail } from './fake-client';

function view(over: Partial<ChartView>): ChartView {
  return { ...chartView('k', 4), ...over };
}
const series = (xs: (number | null)[]) => ({ min: xs, max: xs });

describe('hover card reason', () => {
  it('explains an ok call by its request against the enforced limit', () => {
    const v = view({ total: series([41_200, 0, 0, 0]), limit: series([167_000, 167_000, 167_000, 167_000]) });
    expect(bucketReason(v, 0)).toBe('ok: 41,200 of 167,000 limit (25%)');
  });

  it("gives the marker's line (the guard's reason, the compression's numbers) for other statuses, a run of calls included", () => {
    const v = view({
      status: ['ok', 'warn', 'warn', 'compress'],
      markers: [
        { step: 1, kind: 'warn', reason: 'request 180,000 > limit 167,000 (window − buffer − maxOutput)', until: 2 },
        { step: 3, kind: 'compression', path: 'proactive', strategy: 'summarize', tokensBefore: 170_000, tokensAfter: 60_000 },
      ],
    });
    expect(bucketReason(v, 2)).toBe('warn: request 180,000 > limit 167,000 (window − buffer − maxOutput) (calls 1–2)');
    expect(bucketReason(v, 3)).toBe('compress: proactive compression (summarize): 170,000 → 60,000 tokens');
  });
});

describe('guard status budgets', () => {
  const render = (budgets: ReturnType<typeof stepDetail>['budgets']): string => {
    const store = createAppStore(fakeApi().api);
    store.setState({ selectedStep: 2, stepDetail: { ...stepDetail('k', 2), budgets } });
    // A server render reads the store's initial state: hand it the state set here instead.
    const rendered = { ...store, getInitialState: store.getState };
    return renderToStaticMarkup(createElement(StoreProvider, { store: rendered, children: createElement(GuardStatus) }));
  };

  it('shows the projected request beside what the calls before used, and the % of both', () => {
    const html = render([{ layer: 'session', dimension: 'tokens', used: 12_000, pending: 3_400, limit: 20_000, pct: 77 }]);
    expect(html).toContain('data-testid="guard-budget-pending"');
    expect(html).toMatch(/12,000.*\+ 3,400 this request.*20,000.*77\.0%/s);
  });

  it('shows no projection where the layer has none', () => {
    const html = render([{ layer: 'session', dimension: 'turns', used: 4, limit: 10, pct: 40 }]);
    expect(html).not.toContain('this request');
    expect(html).toContain('data-testid="guard-budget-turns"');
  });
});
