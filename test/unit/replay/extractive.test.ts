/** The default summarizer: extractive, deterministic, offline, structured like S4's summary. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extractFacts } from '../../../src/core/summarize/facts';
import { extractiveSummary } from '../../../src/core/summarize/extractive';
import { s3Prompt } from '../../../src/core/summarize/types';
import type { Message } from '../../../src/core/model';
import { getPolicy } from '../../../src/core/policies/index';
import { replay } from '../../../src/core/replay/index';
import type { ReplayEvent } from '../../../src/core/replay/types';
import { assistant, call, msg, result, session, user } from '../../helpers/session';

const folded = [
  user('The build of src/server/app.ts fails with exit code 137; fix handleRequest please.'),
  assistant([{ kind: 'text', text: 'Let me look at the file first.' }, call('c1', 'Read', '{"file_path":"src/server/app.ts"}')]),
  msg('user', [
    result('c1', 'TypeError: Cannot read properties of undefined (reading "port")\n    at handleRequest (src/server/app.ts:42)', true),
  ]),
  assistant('The root cause is the missing PORT default, because config.port is undefined in tests. I decided to default it to 8080.'),
  assistant([call('c2', 'Edit', '{"path":"src/server/config.ts","old_string":"port","new_string":"port ?? 8080"}')]),
];

describe('extractive summary', () => {
  const s = extractiveSummary({ messages: folded, previousSummary: 'Earlier: set up the repo.', targetTokens: 400 });

  it("has S4's sections: earlier summary, goal, decisions, errors, files, facts", () => {
    expect(s.split('\n')[0]).toBe('Summary of 5 earlier messages:');
    const sections = s.split('\n').filter((l) => l.startsWith('## '));
    expect(sections).toEqual([
      '## Earlier summary',
      '## Goal',
      '## Decisions and findings',
      '## Errors seen',
      '## Files',
      '## Facts to keep',
    ]);
  });

  it('keeps decisions, errors, files touched, identifiers, paths and numbers', () => {
    expect(s).toContain('- The root cause is the missing PORT default, because config.port is undefined in tests.');
    expect(s).toContain('- I decided to default it to 8080.');
    expect(s).toContain('TypeError: Cannot read properties of undefined (reading "port")');
    expect(s).toContain('- src/server/app.ts (Read)');
    expect(s).toContain('- src/server/config.ts (Edit)');
    const facts = s.slice(s.indexOf('## Facts to keep'));
    for (const f of ['handleRequest', 'src/server/app.ts', '137', '8080']) expect(facts).toContain(f);
  });

  it('is deterministic and stays within the target size', () => {
    expect(extractiveSummary({ messages: folded, previousSummary: 'Earlier: set up the repo.', targetTokens: 400 })).toBe(s);
    const small = extractiveSummary({ messages: folded, previousSummary: null, targetTokens: 50 });
    expect(small.length).toBeLessThanOrEqual(200 + 1);
    expect(small).toMatch(/^Summary of 5 earlier messages:/);
  });
});

describe('rolling summary (docs/policies.md §S3, §S4)', () => {
  // Range k of a long session: a request, a finding, a failed read, a fix — each naming its own k.
  const range = (k: number) => [
    user(`Range ${k}: please fix parseModule${k} in src/mod${k}/index.ts, limit ${1000 + k}.`),
    assistant([
      { kind: 'text', text: `I found the root cause of bug ${k} in loadStep${k} because the cache was stale.` },
      call(`c${k}`, 'Read', `{"file_path":"src/mod${k}/index.ts"}`),
    ]),
    msg('user', [result(`c${k}`, `TypeError: step${k} failed at line ${k * 10}`, true)]),
    assistant(`Fixed it: loadStep${k} now resets the cache, tests pass.`),
  ];

  it('after K compressions still holds the latest folded range, the first goal, and stays within its target', () => {
    let summary: string | null = null;
    for (let k = 1; k <= 8; k++) summary = extractiveSummary({ messages: range(k), previousSummary: summary, targetTokens: 150 });
    const s = summary!;
    // 150 tokens × 4 characters.
    expect(s.length).toBeLessThanOrEqual(600);
    expect(s.split('\n')[0]).toBe('Summary of 32 earlier messages:');
    // The task as first given stays; the newest range is there in every section, the one before it too.
    expect(s).toContain('- Range 1: please fix parseModule1');
    for (const latest of ['loadStep8 now resets the cache', 'TypeError: step8 failed', 'src/mod8/index.ts (Read)', 'parseModule8'])
      expect(s).toContain(latest);
    expect(s).toContain('loadStep7');
  });

  it('carries files and facts of earlier summaries while their share holds them (S4 file tracking)', () => {
    let summary: string | null = null;
    for (let k = 1; k <= 3; k++) summary = extractiveSummary({ messages: range(k), previousSummary: summary, targetTokens: 400 });
    for (const f of ['src/mod1/index.ts (Read)', 'src/mod2/index.ts (Read)', 'src/mod3/index.ts (Read)']) expect(summary).toContain(f);
  });

  it("in a replay, each compression's summary names its latest folded range and fits S3's 400 tokens", async () => {
    const msgs: Message[] = [];
    for (let t = 0; t < 80; t++)
      msgs.push(
        user(`Turn ${t}: look at src/turn${t}/main.ts, value ${1000 + t}. ` + 'context '.repeat(40)),
        assistant(`Checked it, turn ${t} is fine. ` + 'words '.repeat(40)),
      );
    const r = await replay(session(msgs), { ...getPolicy('s3')!.config, window: 6_000, budget: {} });
    const comps = r.events.filter((e): e is Extract<ReplayEvent, { kind: 'compression' }> => e.kind === 'compression');
    expect(comps.length).toBeGreaterThanOrEqual(5);
    for (const c of comps) {
      const lastFolded = Math.max(...c.dropped.map(([, b]) => b));
      // The user message at or before the last folded index (users are even).
      const t = Math.floor(lastFolded / 2);
      expect(c.summary).toContain(`src/turn${t}/main.ts`);
      expect(r.steps.regions.summary[c.step]!).toBeLessThanOrEqual(400);
    }
  });
});

describe('facts', () => {
  it('finds paths, identifiers, names and numbers, not JSON keys or short tokens', () => {
    const f = extractFacts(
      'Open src/a/b.ts and README.md; call parseConfig or load_user; ticket ABC-12 by JohnSmith; 1,024 items, 3.5 s, 42 ok; {"old_string": 1}',
    );
    expect(f.map((x) => `${x.kind}:${x.key}`)).toEqual([
      'path:src/a/b.ts',
      'path:README.md',
      'identifier:parseConfig',
      'identifier:load_user',
      'identifier:ABC-12',
      'name:JohnSmith',
      'number:1,024',
      'number:3.5',
    ]);
  });
  it('finds in a text exactly the facts of its lines, repeated lines or not (property)', () => {
    const line = fc
      .array(fc.constantFrom('src/app.ts', 'parseConfig', 'load_user', 'JohnSmith', '4096', '3.5', 'the', 'x', 'AB-12', '(', '"k":', '.'), {
        maxLength: 6,
      })
      .map((w) => w.join(' '));
    fc.assert(
      fc.property(fc.array(fc.tuple(line, fc.integer({ min: 1, max: 3 })), { minLength: 1, maxLength: 8 }), (lines) => {
        const text = lines.flatMap(([l, times]) => Array.from({ length: times }, () => l)).join('\n');
        const keys = (t: string) => new Set(extractFacts(t).map((f) => `${f.kind}:${f.key}`));
        const perLine = new Set(lines.flatMap(([l]) => [...keys(l)]));
        expect(keys(text)).toEqual(perLine);
      }),
    );
  });

  it('repeated lines of tool output add nothing new', () => {
    const once = extractFacts('line 1234 in src/x.ts\nother 5678');
    expect(extractFacts('line 1234 in src/x.ts\n'.repeat(50) + 'other 5678')).toEqual(once);
  });
});

describe("S3's prompt", () => {
  it("states the target budget and asks for the conversation's own language", () => {
    const p = s3Prompt('user: hola', 300);
    expect(p).toContain('Keep the summary under 300 tokens.');
    expect(p).toContain('Use the SAME LANGUAGE as the conversation.');
    expect(p.endsWith('Conversation:\nuser: hola')).toBe(true);
  });
});
