/**
 * The Probe tab at the selected call (docs/probe.md): sends the request the agent really made at
 * this call (a) and the one under the policy (b) to a model the person names, N times each, and
 * shows per task — the next action, each recall question from the loss ledger — how often each
 * context got it right, with 95% Wilson intervals and a verdict only where they do not overlap.
 * Nothing is sent until the person asks; the first time for an endpoint the panel says what
 * will leave the machine (messages, tokens, where) and asks. Stored runs show again without
 * sending, and export as JSON. Model answers are shown as text, never HTML.
 */
import { useEffect } from 'react';
import type { StoredProbe } from '../../../shared/api';
import { useAppStore } from '../context';
import { download } from '../download';
import { fmtInt } from '../format';

const pctRange = (i: { low: number; high: number }): string => `${Math.round(i.low * 100)}–${Math.round(i.high * 100)}%`;

function RunView({ run }: { run: StoredProbe }) {
  const r = run.result;
  const label = (task: string): string =>
    task === 'next'
      ? `next action (the agent: ${r.recorded.kind === 'tool' ? r.recorded.name : 'text'})`
      : (r.questions.find((q) => q.id === task)?.text ?? task);
  const failed = r.answers.filter((a) => a.error);
  const judge = r.settings.judge;
  const failedGrades = r.answers.filter((a) => a.judgeError);
  return (
    <div className="probe-run" data-testid="probe-run" data-step={run.step}>
      <p className="muted">
        {r.settings.model} at {r.settings.endpoint} · {r.settings.replicates} replicates · temperature {r.settings.temperature} ·{' '}
        {judge ? `graded by ${judge.model} at ${judge.endpoint} · ` : ''}
        {new Date(run.createdAt).toLocaleString()}{' '}
        <button
          type="button"
          className="link"
          data-testid="probe-export"
          onClick={() => download(`probe-call-${run.step}-${run.id}.json`, 'application/json', JSON.stringify(run, null, 2))}
        >
          export JSON
        </button>
      </p>
      <table className="probe-table">
        <thead>
          <tr>
            <th>task</th>
            <th>(a) as sent</th>
            <th>(b) under {run.policy}</th>
            <th>verdict</th>
            {judge ? <th title="the judge's grades: (a) · (b) · verdict">judge {judge.model}</th> : null}
          </tr>
        </thead>
        <tbody>
          {r.tallies.map((t) => (
            <tr key={t.task} data-testid="probe-tally" data-verdict={t.verdict}>
              <td>
                <bdi>{label(t.task)}</bdi>
              </td>
              <td>
                {t.original.k}/{t.original.n} <span className="muted">[{pctRange(t.original.interval)}]</span>
                {t.original.errors ? <span className="state state-dropped"> {t.original.errors} failed</span> : null}
              </td>
              <td>
                {t.policy.k}/{t.policy.n} <span className="muted">[{pctRange(t.policy.interval)}]</span>
                {t.policy.errors ? <span className="state state-dropped"> {t.policy.errors} failed</span> : null}
              </td>
              <td className={`verdict verdict-${t.verdict}`}>{t.verdict}</td>
              {judge ? (
                <td data-testid="probe-judge-tally" data-verdict={t.judge?.verdict ?? ''}>
                  {t.judge ? (
                    <>
                      {t.judge.original.k}/{t.judge.original.n} · {t.judge.policy.k}/{t.judge.policy.n} ·{' '}
                      <span className={`verdict verdict-${t.judge.verdict}`}>{t.judge.verdict}</span>
                    </>
                  ) : (
                    <span className="muted">not graded</span>
                  )}
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
      {failed.length > 0 ? (
        <p className="state state-dropped">
          {failed.length} replicate(s) failed: {failed[0]!.error}
        </p>
      ) : null}
      {failedGrades.length > 0 ? (
        <p className="state state-dropped">
          {failedGrades.length} grade(s) failed: {failedGrades[0]!.judgeError}
        </p>
      ) : null}
      <details>
        <summary>every answer ({r.answers.length})</summary>
        <ul className="probe-answers">
          {r.answers.map((a, i) => (
            <li key={i}>
              ({a.side === 'original' ? 'a' : 'b'}) #{a.replicate + 1} {a.task}: <bdi>{a.error ?? a.answer ?? ''}</bdi>
              {a.correct !== undefined ? ` — ${a.correct ? 'right' : 'wrong'}` : a.match ? ` — ${a.match}` : ''}
              {a.judged !== undefined ? ` · judge: ${a.judged ? 'correct' : 'incorrect'}` : ''}
            </li>
          ))}
        </ul>
      </details>
    </div>
  );
}

export function ProbePanel() {
  const step = useAppStore((s) => s.selectedStep);
  const sessionId = useAppStore((s) => s.currentId);
  const policy = useAppStore((s) => s.policyId);
  const form = useAppStore((s) => s.probeForm);
  const plan = useAppStore((s) => s.probePlan);
  const runs = useAppStore((s) => s.probeRuns);
  const busy = useAppStore((s) => s.probeBusy);
  const error = useAppStore((s) => s.probeError);
  const setForm = useAppStore((s) => s.setProbeForm);
  const planProbe = useAppStore((s) => s.planProbe);
  const runProbe = useAppStore((s) => s.runProbe);
  const loadProbes = useAppStore((s) => s.loadProbes);
  const selectStep = useAppStore((s) => s.selectStep);
  useEffect(() => {
    void loadProbes();
  }, [sessionId, loadProbes]);
  if (step === null)
    return (
      <section className="probe-panel empty" data-testid="probe-panel">
        No call selected.
      </section>
    );
  const here = runs.filter((r) => r.step === step && r.policy === policy);
  const probed = [...new Set(runs.map((r) => r.step))].sort((a, b) => a - b);
  const planHere = plan && plan.step === step ? plan : null;
  return (
    <section className="probe-panel" data-testid="probe-panel" data-step={step}>
      <p>
        Probe call #{step}: the request the agent sent (a) and the one under <strong>{policy}</strong> (b), each sent {form.replicates}{' '}
        times to a model you name. It tells what that model does at this one call — not what the agent would have done for the rest of the
        run.
      </p>
      <div className="probe-form">
        <label>
          endpoint{' '}
          <input data-testid="probe-endpoint" value={form.endpoint} size={32} onChange={(e) => setForm({ endpoint: e.target.value })} />
        </label>
        <label>
          model{' '}
          <input
            data-testid="probe-model"
            value={form.model}
            size={18}
            placeholder="e.g. qwen2.5:7b"
            onChange={(e) => setForm({ model: e.target.value })}
          />
        </label>
        <label>
          replicates{' '}
          <input
            data-testid="probe-replicates"
            type="number"
            min={1}
            max={50}
            value={form.replicates}
            onChange={(e) => setForm({ replicates: Math.max(1, Math.min(50, Number(e.target.value) || 1)) })}
          />
        </label>
        <label title="optional: a model that also grades each recall answer CORRECT or INCORRECT">
          judge endpoint{' '}
          <input
            data-testid="probe-judge-endpoint"
            value={form.judgeEndpoint}
            size={26}
            placeholder="optional"
            onChange={(e) => setForm({ judgeEndpoint: e.target.value })}
          />
        </label>
        <label>
          judge model{' '}
          <input
            data-testid="probe-judge-model"
            value={form.judgeModel}
            size={14}
            placeholder="optional"
            onChange={(e) => setForm({ judgeModel: e.target.value })}
          />
        </label>
        <button type="button" data-testid="probe-plan" disabled={busy !== null || !form.model.trim()} onClick={() => void planProbe()}>
          {busy === 'planning' ? 'Planning…' : 'Plan probe'}
        </button>
      </div>
      {error ? (
        <p className="state state-dropped" data-testid="probe-error">
          {error}
        </p>
      ) : null}
      {planHere ? (
        <div className="probe-plan" data-testid="probe-estimate">
          <p>
            Will send {fmtInt(planHere.estimate.requests)} requests: about {fmtInt(planHere.estimate.inputTokens)} input tokens, at most{' '}
            {fmtInt(planHere.estimate.outputTokens)} output tokens,{' '}
            {planHere.estimate.cost === null
              ? 'price unknown (a local model costs nothing per token)'
              : `about $${planHere.estimate.cost.toFixed(4)}`}
            .
          </p>
          {planHere.estimate.judge ? (
            <p data-testid="probe-judge-estimate">
              The judge: {fmtInt(planHere.estimate.judge.requests)} grading requests to <bdi>{planHere.judge?.endpoint}</bdi> (
              <bdi>{planHere.judge?.model}</bdi>), each a question, the item&apos;s value and one answer — no transcript — about{' '}
              {fmtInt(planHere.estimate.judge.inputTokens)} input tokens,{' '}
              {planHere.estimate.judge.cost === null ? 'price unknown' : `about $${planHere.estimate.judge.cost.toFixed(4)}`}.
            </p>
          ) : null}
          {planHere.questions.length > 0 ? (
            <ol className="probe-questions">
              {planHere.questions.map((q) => (
                <li key={q.id}>
                  <bdi>{q.text}</bdi> <span className="muted">(from #{q.messageIndex})</span>
                </li>
              ))}
            </ol>
          ) : (
            <p className="muted">
              No recall question: nothing that left the view before this call is needed later. The next action is compared.
            </p>
          )}
          {planHere.consented && (!planHere.judge || planHere.judge.consented) ? (
            <button type="button" data-testid="probe-send" disabled={busy !== null} onClick={() => void runProbe(false)}>
              {busy === 'running' ? 'Sending…' : 'Send'}
            </button>
          ) : (
            <div className="probe-consent" data-testid="probe-consent" role="alertdialog" aria-label="What will leave this machine">
              <p>
                <strong>This leaves your machine:</strong> the system prompt, the conversation up to call #{step} (
                {fmtInt(planHere.estimate.contextTokens.original)} tokens as the agent sent it,{' '}
                {fmtInt(planHere.estimate.contextTokens.policy)} under the policy), the tool definitions and the questions —{' '}
                {fmtInt(planHere.estimate.requests)} requests to <bdi>{planHere.endpoint}</bdi>
                {planHere.withKey ? ', with the API key bound to that endpoint' : ', without a key'}.
                {planHere.judge ? (
                  <>
                    {' '}
                    The judge gets each question, the item&apos;s value and one answer — {fmtInt(
                      planHere.estimate.judge?.requests ?? 0,
                    )}{' '}
                    requests to <bdi>{planHere.judge.endpoint}</bdi>
                    {planHere.judge.withKey ? ', with the API key bound to that endpoint' : ', without a key'}.
                  </>
                ) : null}{' '}
                You are asked once per endpoint.
              </p>
              <button type="button" data-testid="probe-consent-send" disabled={busy !== null} onClick={() => void runProbe(true)}>
                {busy === 'running' ? 'Sending…' : 'Agree and send'}
              </button>
            </div>
          )}
        </div>
      ) : null}
      {here.map((run) => (
        <RunView key={run.id} run={run} />
      ))}
      {probed.length > 0 ? (
        <p className="muted" data-testid="probe-calls">
          probed calls:{' '}
          {probed.map((s) => (
            <button key={s} type="button" className="link" onClick={() => selectStep(s)}>
              #{s}
            </button>
          ))}
        </p>
      ) : null}
    </section>
  );
}
