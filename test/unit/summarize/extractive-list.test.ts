/**
 * provideMessageList (summarize/extractive.ts): the tuner lays a session's items out once so that
 * a fold that is one contiguous run of the list is a scan of integers. The summaries must be the
 * very ones the per-message path writes — for every run, with and without an earlier summary, and
 * for folds that are not one run (several runs, out of order), which take the per-message path.
 */
import { describe, expect, it } from 'vitest';
import type { Message } from '../../../src/core/model';
import { extractiveSummary, extractiveSummaryText, provideMessageList } from '../../../src/core/summarize/extractive';
import type { SummaryText } from '../../../src/core/summarize/summary-text';
import { assistant, call, msg, result, user } from '../../helpers/session';

/** Items that repeat across messages (the dedupe matters), an error result, a decision, paths, a fact with ", ". */
function list(): Message[] {
  const out: Message[] = [];
  for (let i = 0; i < 60; i++) {
    const file = `src/pkg${i % 4}/mod${i % 6}.ts`;
    if (i % 5 === 0) out.push(user(`Please fix parseConfig${i % 3} in ${file}, limit ${1000 + (i % 7)}.`));
    out.push(
      assistant([
        { kind: 'text', text: i % 3 === 0 ? `I decided to switch the parser because step ${i % 4} fails.` : `Looking at ${file} now.` },
        call(`c${i}`, 'Read', JSON.stringify({ file_path: file })),
      ]),
    );
    out.push(
      msg('user', [
        result(`c${i}`, i % 4 === 0 ? `TypeError: x is undefined at ${file}:${i % 9}\nmore` : `ok ${i % 5}\n`.repeat(3), i % 8 === 0),
      ]),
    );
  }
  return out;
}

describe('extractive summary over a provided message list', () => {
  const plain = list();
  const laid = list();
  provideMessageList(laid);

  it('writes the same summary for every contiguous run as the per-message path', () => {
    let runs = 0;
    for (let a = 0; a < plain.length; a += 7) {
      for (let b = a + 1; b <= plain.length; b += 11) {
        for (const targetTokens of [60, 400]) {
          const previousSummary =
            a % 2 === 0 ? null : extractiveSummary({ messages: plain.slice(0, a), previousSummary: null, targetTokens });
          const want = extractiveSummary({ messages: plain.slice(a, b), previousSummary, targetTokens });
          expect(extractiveSummary({ messages: laid.slice(a, b), previousSummary, targetTokens })).toBe(want);
          runs++;
        }
      }
    }
    expect(runs).toBeGreaterThan(50);
  });

  it('writes the same summary for folds that are not one run (several runs, out of order)', () => {
    const pick = (xs: Message[], idx: number[]): Message[] => idx.map((i) => xs[i]!);
    const folds = [
      [...Array.from({ length: 20 }, (_, i) => i), ...Array.from({ length: 30 }, (_, i) => 60 + i)],
      Array.from({ length: 40 }, (_, i) => 100 - i),
      [5, 5, 6, 7],
    ];
    for (const idx of folds) {
      expect(extractiveSummary({ messages: pick(laid, idx), previousSummary: null, targetTokens: 300 })).toBe(
        extractiveSummary({ messages: pick(plain, idx), previousSummary: null, targetTokens: 300 }),
      );
    }
  });

  it('keeps the latest mention first and each item once', () => {
    const s = extractiveSummary({ messages: laid.slice(0, 40), previousSummary: null, targetTokens: 2_000 });
    const files = s.slice(s.indexOf('## Files')).split('\n## ')[0]!.split('\n').slice(1);
    expect(new Set(files).size).toBe(files.length);
    // The run's last Read leads the section.
    const last = laid.slice(0, 40).findLast((m) => m.parts.some((p) => p.kind === 'tool_call'))!;
    const args = last.parts.find((p) => p.kind === 'tool_call');
    expect(files[0]).toBe(
      `- ${(JSON.parse(args && args.kind === 'tool_call' ? args.args : '{}') as { file_path: string }).file_path} (Read)`,
    );
    expect(files.length).toBeGreaterThan(3);
  });

  it('rolls a laid-out summary forward as the text path does: an item both fresh and carried shown once, fresh first', () => {
    // The replay hands the previous summary over as its layout (mergeUnique's carried items are
    // distinct); reading it back from its text must give the same next summary, fold after fold.
    for (const targetTokens of [120, 600, 3_000]) {
      let previous: SummaryText | null = null;
      let repeatedFiles = 0;
      for (let a = 0; a + 9 <= laid.length; a += 9) {
        const fold = laid.slice(a, a + 9);
        const next = extractiveSummaryText({ messages: fold, previous, targetTokens });
        expect(next.text).toBe(extractiveSummary({ messages: fold, previousSummary: previous?.text ?? null, targetTokens }));
        const files = next.text.includes('## Files')
          ? next.text.slice(next.text.indexOf('## Files')).split('\n## ')[0]!.split('\n').slice(1)
          : [];
        expect(new Set(files).size).toBe(files.length);
        if (previous?.text.includes('## Files') && files.some((f) => previous!.text.includes(f + '\n') || previous!.text.endsWith(f)))
          repeatedFiles++;
        previous = next;
      }
      if (targetTokens >= 600) expect(repeatedFiles).toBeGreaterThan(0);
    }
  });
});
