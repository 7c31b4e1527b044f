/**
 * The export dialog: what (the session, the compacted history at the selected call, the replay
 * report), the format that fits it, redaction (built-in sets and the user's RE2 patterns) with the
 * host's count of what will be replaced, by kind, before anything is saved, and an editable file
 * name. Save downloads the file; in Electron a download asks where to save it (native dialog).
 * The menu's File ▸ Export… opens this same dialog.
 */
import { useEffect, useRef, useState } from 'react';
import { REDACTION_BUILTINS, type ExportTarget } from '../../../shared/api';
import { withExtension } from '../../../core/export/file-name';
import { useAppStore } from '../context';
import { download } from '../download';
import { fmtInt } from '../format';
import { FORMATS_FOR, type ExportWhat, type RedactionBuiltin } from '../slices/export';
import { useModal } from '../use-modal';

const FORMAT_LABEL: Record<ExportTarget, string> = {
  openai: 'OpenAI messages (JSON)',
  anthropic: 'Anthropic messages (JSON)',
  jsonl: 'JSON lines',
  markdown: 'Markdown',
  'report-json': 'Replay report (JSON)',
  'report-csv': 'Replay report (CSV)',
};

const BUILTIN_LABEL: Record<RedactionBuiltin, string> = {
  keys: 'API keys and tokens (secretlint rules and key formats)',
  bearer: 'Authorization headers (Bearer and Basic)',
  email: 'E-mail addresses',
};

/** How long typing in the patterns box waits before asking for a new count. */
const PATTERN_DEBOUNCE_MS = 300;

export function ExportDialog() {
  const open = useAppStore((s) => s.exportOpen);
  const watch = useAppStore((s) => s.watchExportMenu);
  useEffect(() => watch(), [watch]);
  return open ? <ExportDialogBody /> : null;
}

/** "call 412 of 1,200, turn 37", or where the history is taken when no call is selected. */
function CallLine() {
  const step = useAppStore((s) => s.selectedStep);
  const stepCount = useAppStore((s) => s.chart?.stepCount ?? 0);
  const turn = useAppStore((s) => (s.stepDetail && s.stepDetail.step === s.selectedStep ? s.stepDetail.turn : null));
  const policy = useAppStore((s) => s.chartFor?.policy ?? null);
  const overrides = useAppStore((s) => Object.keys(s.chartFor?.overrides ?? {}).length);
  const where =
    step === null
      ? `after the last call (${fmtInt(stepCount)} calls)`
      : `call ${fmtInt(step)} of ${fmtInt(stepCount)}${turn === null ? '' : `, turn ${fmtInt(turn)}`}`;
  return (
    <span className="muted" data-testid="export-call" data-step={step ?? 'end'}>
      {where} under <bdi>{policy ?? '—'}</bdi>
      {overrides > 0 ? ` with ${overrides} override${overrides === 1 ? '' : 's'}` : ''}
    </span>
  );
}

function ExportDialogBody() {
  const choice = useAppStore((s) => s.exportChoice);
  const preview = useAppStore((s) => s.exportPreview);
  const problem = useAppStore((s) => s.exportPreviewError);
  const pending = useAppStore((s) => s.exportPending);
  const hasReplay = useAppStore((s) => s.chartFor !== null);
  const host = useAppStore((s) => s.info?.host ?? 'serve');
  const setChoice = useAppStore((s) => s.setExportChoice);
  const save = useAppStore((s) => s.saveExport);
  const close = useAppStore((s) => s.closeExport);
  const [patterns, setPatterns] = useState(choice.patterns);
  const [name, setName] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);

  // The suggested name follows the choices until the user edits it.
  const fileName = name ?? preview?.fileName ?? '';
  useEffect(() => () => void (timer.current && clearTimeout(timer.current)), []);
  const dialog = useRef<HTMLDivElement>(null);
  useModal(true, dialog, close);

  const onPatterns = (text: string): void => {
    setPatterns(text);
    if (timer.current) clearTimeout(timer.current);
    timer.current = setTimeout(() => void setChoice({ patterns: text }), PATTERN_DEBOUNCE_MS);
  };
  const toggleBuiltin = (b: RedactionBuiltin, on: boolean): void => {
    void setChoice({ builtins: REDACTION_BUILTINS.filter((x) => (x === b ? on : choice.builtins.includes(x))) });
  };
  const isReport = choice.what === 'report';
  const lines = patterns.split('\n');
  // Problems come back per non-blank line; map them onto the lines as typed.
  const problems: { line: number; text: string }[] = [];
  let k = 0;
  lines.forEach((l, i) => {
    if (l.trim().length === 0) return;
    const p = preview?.patternProblems[k++];
    if (p) problems.push({ line: i + 1, text: p });
  });
  const kinds = Object.entries(preview?.byKind ?? {}).sort((a, b) => b[1] - a[1]);

  const onSave = async (): Promise<void> => {
    if (!preview) return;
    setSaving(true);
    // Patterns still inside their debounce go in first.
    if (patterns !== choice.patterns) {
      if (timer.current) clearTimeout(timer.current);
      await setChoice({ patterns });
    }
    const r = await save();
    setSaving(false);
    if (!r) return;
    download(withExtension(fileName || r.fileName, preview.extension), r.mime, r.text);
    close();
  };

  return (
    <div className="dialog-backdrop" onMouseDown={(e) => e.target === e.currentTarget && close()}>
      <div
        ref={dialog}
        className="dialog export-dialog"
        role="dialog"
        aria-modal="true"
        aria-labelledby="export-title"
        data-testid="export-dialog"
      >
        <h2 id="export-title">Export</h2>
        <fieldset>
          <legend>What</legend>
          {(['original', 'window', 'report'] as const).map((w: ExportWhat) => (
            <label key={w}>
              <input
                type="radio"
                name="export-what"
                data-testid={`export-what-${w}`}
                checked={choice.what === w}
                disabled={w !== 'original' && !hasReplay}
                onChange={() => void setChoice({ what: w })}
              />
              {w === 'original'
                ? 'The session as the agent recorded it'
                : w === 'window'
                  ? 'The compacted history at '
                  : 'The replay report (every call)'}
              {w === 'window' ? <CallLine /> : null}
            </label>
          ))}
        </fieldset>
        <label className="row">
          Format
          <select
            data-testid="export-format"
            value={choice.to}
            onChange={(e) => void setChoice({ to: e.target.value as ExportTarget })}
            data-autofocus
          >
            {FORMATS_FOR[choice.what].map((t) => (
              <option key={t} value={t}>
                {FORMAT_LABEL[t]}
              </option>
            ))}
          </select>
        </label>
        <fieldset disabled={isReport}>
          <legend>
            <label>
              <input
                type="checkbox"
                data-testid="export-redact"
                checked={choice.redact && !isReport}
                onChange={(e) => void setChoice({ redact: e.target.checked })}
              />{' '}
              Redact
            </label>
            {isReport ? <span className="muted"> (a report holds numbers and policy reasons, not transcript text)</span> : null}
          </legend>
          {REDACTION_BUILTINS.map((b) => (
            <label key={b} className="row">
              <input
                type="checkbox"
                data-testid={`export-builtin-${b}`}
                checked={choice.builtins.includes(b)}
                disabled={!choice.redact}
                onChange={(e) => toggleBuiltin(b, e.target.checked)}
              />
              {BUILTIN_LABEL[b]}
            </label>
          ))}
          <label className="stack">
            Your patterns, one per line: text, or /regex/flags (RE2: no lookaround or backreferences)
            <textarea
              data-testid="export-patterns"
              rows={3}
              value={patterns}
              disabled={!choice.redact}
              spellCheck={false}
              onChange={(e) => onPatterns(e.target.value)}
            />
          </label>
          {problems.length > 0 ? (
            <ul className="pattern-problems" data-testid="export-pattern-problems">
              {problems.map((p) => (
                <li key={p.line}>
                  line {p.line}: <bdi>{p.text}</bdi>
                </li>
              ))}
            </ul>
          ) : null}
          <div
            data-testid="export-redactions"
            data-count={preview && !isReport && choice.redact ? preview.redactions : 0}
            data-pending={pending}
          >
            {!choice.redact || isReport ? (
              <span className="muted">Nothing will be redacted.</span>
            ) : preview ? (
              <>
                {pending ? <span className="muted">(counting…) </span> : null}
                <strong>{fmtInt(preview.redactions)}</strong> {preview.redactions === 1 ? 'replacement' : 'replacements'} will be made
                {kinds.length > 0 ? ': ' : '.'}
                {kinds.map(([kind, n], i) => (
                  <span key={kind} data-testid={`export-redactions-${kind}`} data-count={n}>
                    {i > 0 ? ', ' : ''}
                    <bdi>{kind}</bdi> {fmtInt(n)}
                  </span>
                ))}
              </>
            ) : (
              <span className="muted">Counting…</span>
            )}
          </div>
        </fieldset>
        <label className="row">
          File name
          <input data-testid="export-filename" value={fileName} spellCheck={false} onChange={(e) => setName(e.target.value)} />
        </label>
        <p className="muted" data-testid="export-messages" data-count={preview?.messages ?? ''}>
          {preview ? (preview.messages === null ? 'Per-call figures of the replay.' : `${fmtInt(preview.messages)} messages.`) : ' '}{' '}
          {host === 'electron' ? 'Save asks where to put the file.' : 'Save downloads the file.'}
        </p>
        {problem ? (
          <p className="policy-problem" role="alert" data-testid="export-error">
            <bdi>{problem}</bdi>
          </p>
        ) : null}
        <div className="dialog-buttons">
          <button data-testid="export-cancel" onClick={close}>
            Cancel
          </button>
          <button
            data-testid="export-save"
            onClick={() => void onSave()}
            disabled={!preview || pending || saving || problems.length > 0 || fileName.trim().length === 0}
          >
            {saving ? 'Saving…' : 'Save'}
          </button>
        </div>
      </div>
    </div>
  );
}
