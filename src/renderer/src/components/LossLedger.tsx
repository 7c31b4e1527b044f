/**
 * The loss ledger at the selected call (docs/probe.md §Loss ledger): what its compression, or the
 * agent's own compaction, took out of the model's view — "Lost: 12 items, 4 needed later" —
 * grouped by kind, each item linked to the message it came from. Items the summary still holds
 * are listed apart. Transcript text is rendered as text, never as HTML.
 */
import { useState } from 'react';
import type { StepDetail } from '../../../shared/api';
import { useAppStore } from '../context';
import { fmtInt } from '../format';

type Ledger = NonNullable<StepDetail['ledger']>[number];
type Item = Ledger['items'][number];

const KIND_LABEL: Readonly<Record<Item['kind'], string>> = {
  path: 'file paths',
  command: 'commands run',
  error: 'error messages',
  identifier: 'identifiers',
  number: 'numbers with units',
  decision: 'decisions',
  instruction: 'user instructions',
};
/** Items shown per kind before "show all": a compression of a long stretch removes hundreds. */
const SHOWN = 12;

function Row({ it }: { it: Item }) {
  const selectMessage = useAppStore((s) => s.selectMessage);
  return (
    <li className={`ledger-item${it.neededAt !== null ? ' needed' : ''}`} data-kind={it.kind}>
      <button type="button" className="link" title={`open message #${it.messageIndex}`} onClick={() => selectMessage(it.messageIndex)}>
        #{it.messageIndex}
      </button>{' '}
      <bdi className="ledger-value">{it.value}</bdi> <span className={`state state-${it.fate}`}>{it.fate}</span>
      {it.neededAt !== null ? (
        <>
          {' '}
          <button
            type="button"
            className="link ledger-needed"
            title={`message #${it.neededAt} refers to it again`}
            onClick={() => selectMessage(it.neededAt!)}
          >
            needed at #{it.neededAt}
          </button>
        </>
      ) : null}
    </li>
  );
}

function KindGroup({ kind, items }: { kind: Item['kind']; items: readonly Item[] }) {
  const [all, setAll] = useState(false);
  const needed = items.filter((i) => i.neededAt !== null).length;
  const shown = all ? items : items.slice(0, SHOWN);
  return (
    <details className="ledger-kind" open={needed > 0} data-testid={`ledger-kind-${kind}`}>
      <summary>
        {KIND_LABEL[kind]}: {fmtInt(items.length)}
        {needed > 0 ? <span className="ledger-needed"> · {fmtInt(needed)} needed later</span> : null}
      </summary>
      <ul>
        {shown.map((it) => (
          <Row key={`${it.messageIndex} ${it.value}`} it={it} />
        ))}
      </ul>
      {items.length > shown.length ? (
        <button type="button" className="link" onClick={() => setAll(true)}>
          show all {fmtInt(items.length)}
        </button>
      ) : null}
    </details>
  );
}

function OneLedger({ l }: { l: Ledger }) {
  const lost = l.items.filter((i) => !i.inSummary);
  const held = l.items.filter((i) => i.inSummary);
  // Needed-later items first within a kind: those are the ones a reader checks.
  const byKind = new Map<Item['kind'], Item[]>();
  for (const it of [...lost].sort((a, b) => Number(b.neededAt !== null) - Number(a.neededAt !== null))) {
    const list = byKind.get(it.kind);
    if (list) list.push(it);
    else byKind.set(it.kind, [it]);
  }
  return (
    <div className="ledger" data-testid="loss-ledger" data-source={l.source} data-lost={l.lost} data-needed={l.neededLater}>
      <p className="ledger-head">
        <strong data-testid="ledger-headline">
          Lost: {fmtInt(l.lost)} item{l.lost === 1 ? '' : 's'}, {fmtInt(l.neededLater)} needed later
        </strong>
        <span className="muted">
          {' '}
          · {l.source === 'agent' ? `the agent's own compaction` : `${l.path ?? ''} compression (${l.strategy})`}
          {held.length > 0 ? ` · ${fmtInt(held.length)} more still in the summary` : ''}
        </span>
      </p>
      {[...byKind].map(([kind, items]) => (
        <KindGroup key={kind} kind={kind} items={items} />
      ))}
    </div>
  );
}

export function LossLedger({ d }: { d: StepDetail }) {
  if (!d.ledger || d.ledger.length === 0) return null;
  return (
    <section className="loss-ledger" data-testid="loss-ledgers">
      {d.ledger.map((l) => (
        <OneLedger key={`${l.source} ${l.step}`} l={l} />
      ))}
    </section>
  );
}
