/**
 * A policy is data: this panel shows the current policy as its JSON file, lets the user edit it
 * (give it a new id to save a copy of a built-in), import a policy file, export one, and delete
 * a saved one. The host validates every save and the error names the field that is wrong.
 */
import { useEffect, useRef, useState } from 'react';
import { useAppStore } from '../context';
import { download } from '../download';

export function PolicyEditor({ onClose }: { onClose: () => void }) {
  const policyId = useAppStore((s) => s.policyId);
  const policies = useAppStore((s) => s.policies);
  const exportPolicy = useAppStore((s) => s.exportPolicy);
  const savePolicy = useAppStore((s) => s.savePolicy);
  const deletePolicy = useAppStore((s) => s.deletePolicy);
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const current = policies.find((p) => p.id === policyId);

  useEffect(() => {
    if (!policyId) return;
    void exportPolicy(policyId).then((r) => {
      if (!r) return;
      // A built-in cannot be overwritten: offer a copy under a new id to edit.
      const isSaved = policies.find((p) => p.id === policyId)?.saved ?? false;
      setText(isSaved ? r.text : r.text.replace(`"id": "${policyId}"`, `"id": "${policyId}-mine"`));
      setProblem(null);
    });
  }, [policyId, exportPolicy, policies]);

  const save = async () => {
    setSaved(null);
    const error = await savePolicy(text);
    setProblem(error);
    if (!error) setSaved('saved');
  };

  return (
    <section className="policy-editor" data-testid="policy-editor" aria-label="Policy editor">
      <div className="policy-editor-bar">
        <strong>Policy as JSON</strong>
        <span className="muted">keys as in `--set`; saved policies live in the database</span>
        <button data-testid="policy-save" onClick={() => void save()}>
          Save
        </button>
        <button onClick={() => fileInput.current?.click()}>Import…</button>
        <input
          ref={fileInput}
          type="file"
          accept=".json,application/json"
          data-testid="policy-import"
          hidden
          onChange={(e) => {
            const f = e.target.files?.[0];
            if (f) void f.text().then((t) => setText(t));
            e.target.value = '';
          }}
        />
        <button
          data-testid="policy-export"
          onClick={() => {
            if (policyId) void exportPolicy(policyId).then((r) => r && download(r.fileName, r.mime, r.text));
          }}
        >
          Export
        </button>
        {current?.saved ? (
          <button data-testid="policy-delete" onClick={() => void deletePolicy(current.id)}>
            Delete
          </button>
        ) : null}
        <button onClick={onClose}>Close</button>
      </div>
      <textarea data-testid="policy-json" spellCheck={false} value={text} onChange={(e) => setText(e.target.value)} rows={12} />
      {problem ? (
        <p className="policy-problem" role="alert" data-testid="policy-problem">
          {problem}
        </p>
      ) : null}
      {saved ? <p className="muted">{saved}</p> : null}
    </section>
  );
}
