/**
 * Writes resources/sample/sample-session.jsonl: the bundled sample, a Claude Code session of a
 * bug hunt in a small TypeScript service. Deterministic (no clock, no randomness) so the file
 * and every snapshot built on it are stable. Run: node scripts/make-sample.mjs
 *
 * What it exercises: many turns, tool calls with large results, reported usage per call
 * (Anthropic convention, cache read/write), a split assistant line (same message.id), a
 * sidechain (subagent) line, and one auto-compaction (compact_boundary + isCompactSummary).
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'resources', 'sample', 'sample-session.jsonl');
const sessionId = '7b1f3c2e-5a41-4c0e-9d7e-2f6a8b9c0d11';
const cwd = '/home/dev/orders-service';
const model = 'claude-sonnet-4-5-20250929';
// What Claude Code sends but does not log: system prompt + tool definitions.
const UNLOGGED = 17_850;

let clock = Date.UTC(2026, 9, 14, 9, 0, 0);
let uuidCounter = 0;
let msgCounter = 0;
let toolCounter = 0;
const uuid = () => `00000000-0000-4000-8000-${String(++uuidCounter).padStart(12, '0')}`;
const tick = (s) => new Date((clock += s * 1000)).toISOString();

const lines = [];
let parent = null;
let contextChars = 0; // what the transcript holds in the window, for the reported usage
let previousPrompt = 0;

const base = () => ({ isSidechain: false, userType: 'external', cwd, sessionId, version: '2.0.14', gitBranch: 'fix/order-totals' });

function push(line) {
  lines.push(line);
  if (line.uuid) parent = line.uuid;
}

function user(text) {
  contextChars += text.length;
  push({ parentUuid: parent, ...base(), type: 'user', message: { role: 'user', content: text }, uuid: uuid(), timestamp: tick(40) });
}

function usageFor(outputText) {
  const prompt = UNLOGGED + Math.round(contextChars / 3.7);
  const cacheRead = Math.min(previousPrompt, prompt - 3);
  const usage = {
    input_tokens: 3,
    cache_creation_input_tokens: Math.max(0, prompt - 3 - cacheRead),
    cache_read_input_tokens: cacheRead,
    output_tokens: Math.max(12, Math.round(outputText.length / 3.5)),
    service_tier: 'standard',
  };
  previousPrompt = prompt;
  return usage;
}

/** One LLM call: optional text, optional tool calls, each answered by a result. */
function assistant(text, tools = []) {
  const id = `msg_01SAMPLE${String(++msgCounter).padStart(14, '0')}`;
  const blocks = [];
  if (text) blocks.push({ type: 'text', text });
  const calls = tools.map((t) => ({
    type: 'tool_use',
    id: `toolu_01SAMPLE${String(++toolCounter).padStart(12, '0')}`,
    name: t.name,
    input: t.input,
  }));
  const outText = (text ?? '') + calls.map((c) => JSON.stringify(c.input)).join('');
  const usage = usageFor(outText);
  contextChars += outText.length;
  // Claude Code writes one line per content block of the same API message (same message.id).
  const parts = [...blocks, ...calls];
  parts.forEach((block, i) => {
    push({
      parentUuid: parent,
      ...base(),
      message: {
        model,
        id,
        type: 'message',
        role: 'assistant',
        content: [block],
        stop_reason: i === parts.length - 1 ? (calls.length ? 'tool_use' : 'end_turn') : null,
        stop_sequence: null,
        usage,
      },
      requestId: `req_01SAMPLE${String(msgCounter).padStart(12, '0')}`,
      type: 'assistant',
      uuid: uuid(),
      timestamp: tick(6),
    });
  });
  calls.forEach((c, i) => {
    const result = tools[i].result;
    contextChars += result.length;
    push({
      parentUuid: parent,
      ...base(),
      type: 'user',
      message: { role: 'user', content: [{ tool_use_id: c.id, type: 'tool_result', content: result, is_error: tools[i].error === true }] },
      uuid: uuid(),
      timestamp: tick(2),
      toolUseResult: { stdout: result.slice(0, 200), stderr: '', interrupted: false },
    });
  });
}

function sourceFile(name, lineCount, seed) {
  const rows = [`// ${name}`, `import { Order, LineItem } from './types';`, ''];
  for (let i = 0; i < lineCount; i++) {
    const n = (i * 7 + seed) % 97;
    if (i % 12 === 0) rows.push(`export function step${seed}_${i}(order: Order): number {`);
    else if (i % 12 === 11) rows.push('}');
    else rows.push(`  const v${i} = order.items.reduce((sum: number, item: LineItem) => sum + item.price * ${n} / 100, 0); // line ${i}`);
  }
  return rows.map((r, i) => `${String(i + 1).padStart(5)}\t${r}`).join('\n');
}

function testOutput(failing) {
  const rows = ['> orders-service@1.4.2 test', '> vitest run', ''];
  for (let i = 0; i < 40; i++) rows.push(` ✓ test/orders/case-${i}.test.ts (${3 + (i % 5)} tests) ${12 + i}ms`);
  if (failing) {
    rows.push(
      ' ✗ test/orders/totals.test.ts > applies the EU VAT rate after the discount',
      '   AssertionError: expected 119.0 to be 118.81',
      '     at computeTotal (src/orders/totals.ts:42:17)',
    );
  }
  rows.push('', ` Test Files  ${failing ? '1 failed | ' : ''}40 passed (41)`);
  return rows.join('\n');
}

// ---- the session ------------------------------------------------------------------------------
user(
  'The order totals are off by a few cents for EU customers since release 1.4.2 (ticket ORD-1187). Find out why and fix it. The VAT rate for DE is 19%.',
);
assistant("I'll start by looking at how totals are computed.", [
  {
    name: 'Grep',
    input: { pattern: 'computeTotal', path: 'src' },
    result:
      'src/orders/totals.ts:38:export function computeTotal(order: Order): number {\nsrc/orders/checkout.ts:112:  const total = computeTotal(order);\nsrc/invoices/render.ts:57:    total: computeTotal(order),',
  },
]);
assistant(null, [
  { name: 'Read', input: { file_path: `${cwd}/src/orders/totals.ts` }, result: sourceFile('src/orders/totals.ts', 260, 3) },
]);
assistant('`computeTotal` applies VAT before the discount. Let me check the tests to confirm the expected order.', [
  {
    name: 'Bash',
    input: { command: 'npx vitest run test/orders/totals.test.ts', description: 'Run the totals tests' },
    result: testOutput(true),
    error: true,
  },
]);
assistant(null, [
  { name: 'Read', input: { file_path: `${cwd}/src/orders/discounts.ts` }, result: sourceFile('src/orders/discounts.ts', 420, 5) },
]);
assistant(
  'The discount module rounds each line to 2 decimals (`roundLine`), and totals.ts rounds again after VAT. Two roundings explain the 0.19 difference.',
);

user('Makes sense. Can you also check the invoice renderer, it prints totals too.');
assistant(null, [
  { name: 'Read', input: { file_path: `${cwd}/src/invoices/render.ts` }, result: sourceFile('src/invoices/render.ts', 520, 11) },
]);
assistant(null, [
  { name: 'Read', input: { file_path: `${cwd}/src/invoices/format.ts` }, result: sourceFile('src/invoices/format.ts', 380, 13) },
]);
assistant(
  'The renderer calls `computeTotal` and then `formatMoney`, which truncates instead of rounding (format.ts line 88). That is a second bug.',
);

user('Fix both, keep the public API of computeTotal unchanged.');
assistant("I'll apply the discount first, round once at the end, and make formatMoney round half-even.", [
  {
    name: 'Edit',
    input: {
      file_path: `${cwd}/src/orders/totals.ts`,
      old_string: 'const gross = applyVat(net, rate);\n  return roundLine(applyDiscount(gross, order.discount));',
      new_string: 'const discounted = applyDiscount(net, order.discount);\n  return roundHalfEven(applyVat(discounted, rate), 2);',
    },
    result: 'The file src/orders/totals.ts has been updated.',
  },
]);
assistant(null, [
  {
    name: 'Edit',
    input: {
      file_path: `${cwd}/src/invoices/format.ts`,
      old_string: 'Math.trunc(value * 100) / 100',
      new_string: 'roundHalfEven(value, 2)',
    },
    result: 'The file src/invoices/format.ts has been updated.',
  },
]);
assistant(null, [{ name: 'Bash', input: { command: 'npx vitest run', description: 'Run the whole suite' }, result: testOutput(false) }]);
assistant(
  'All 41 test files pass. The fix: discount before VAT, a single half-even rounding in computeTotal, and formatMoney rounds instead of truncating.',
);

user('Great. Now add a regression test for ORD-1187 with the exact basket from the ticket: 3 × 12.99 EUR, 10% discount, DE.');
assistant(null, [
  { name: 'Read', input: { file_path: `${cwd}/test/orders/totals.test.ts` }, result: sourceFile('test/orders/totals.test.ts', 640, 17) },
]);
assistant(null, [
  { name: 'Read', input: { file_path: `${cwd}/test/fixtures/baskets.ts` }, result: sourceFile('test/fixtures/baskets.ts', 700, 19) },
]);
// A subagent (Task tool) explored in parallel: its lines are a sidechain, not in the main window.
lines.push({
  parentUuid: null,
  ...base(),
  isSidechain: true,
  type: 'user',
  message: { role: 'user', content: 'Find every place that formats money in src/.' },
  uuid: uuid(),
  timestamp: tick(3),
});
lines.push({
  parentUuid: `00000000-0000-4000-8000-${String(uuidCounter).padStart(12, '0')}`,
  ...base(),
  isSidechain: true,
  type: 'assistant',
  message: {
    model: 'claude-haiku-4-5-20251001',
    id: 'msg_01SAMPLESIDECHAIN0001',
    type: 'message',
    role: 'assistant',
    content: [{ type: 'text', text: 'formatMoney is used in src/invoices/format.ts and src/emails/receipt.ts.' }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 1200, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 40 },
  },
  uuid: uuid(),
  timestamp: tick(4),
});
assistant('I will add the ORD-1187 basket to the fixtures and a test expecting 35.07 EUR net, 41.73 EUR gross.', [
  {
    name: 'Edit',
    input: {
      file_path: `${cwd}/test/fixtures/baskets.ts`,
      old_string: 'export const baskets = {',
      new_string:
        "export const baskets = {\n  ord1187: { items: [{ sku: 'MUG-12', price: 12.99, qty: 3 }], discount: 0.1, country: 'DE' },",
    },
    result: 'The file test/fixtures/baskets.ts has been updated.',
  },
]);
assistant(null, [
  { name: 'Bash', input: { command: 'npx vitest run test/orders', description: 'Run the order tests' }, result: testOutput(false) },
]);
assistant('The regression test passes: 3 × 12.99 = 38.97, minus 10% = 35.07, plus 19% VAT = 41.73 EUR.');

user('Check the e-mail receipts too, the subagent said formatMoney is used there.');
assistant(null, [
  { name: 'Read', input: { file_path: `${cwd}/src/emails/receipt.ts` }, result: sourceFile('src/emails/receipt.ts', 900, 23) },
]);
assistant(null, [
  { name: 'Read', input: { file_path: `${cwd}/src/emails/templates.ts` }, result: sourceFile('src/emails/templates.ts', 1100, 29) },
]);
assistant(null, [{ name: 'Read', input: { file_path: `${cwd}/src/emails/i18n.ts` }, result: sourceFile('src/emails/i18n.ts', 820, 31) }]);
assistant('receipt.ts uses the shared formatMoney, so the fix already covers it. templates.ts and i18n.ts only pass preformatted strings.');

// Claude Code auto-compacted here: a boundary line, then the summary as a user message.
const before = previousPrompt;
push({
  parentUuid: parent,
  logicalParentUuid: parent,
  ...base(),
  type: 'system',
  subtype: 'compact_boundary',
  content: 'Conversation compacted',
  isMeta: false,
  timestamp: tick(5),
  uuid: uuid(),
  level: 'info',
  compactMetadata: { trigger: 'auto', preTokens: before },
});
const summary =
  'This session is being continued from a previous conversation that ran out of context. Summary:\n1. Ticket ORD-1187: EU order totals off by cents since 1.4.2.\n2. Root causes: VAT applied before the discount with two roundings (src/orders/totals.ts computeTotal), and formatMoney truncating (src/invoices/format.ts line 88).\n3. Fixed: discount first, one roundHalfEven(…, 2); formatMoney rounds half-even. Public API of computeTotal unchanged.\n4. Regression test added: basket ord1187 (3 × 12.99 EUR, 10% discount, DE) → 41.73 EUR. All 41 test files pass.\n5. E-mail receipts use the shared formatMoney (src/emails/receipt.ts).';
contextChars = summary.length;
previousPrompt = 0;
push({
  parentUuid: parent,
  ...base(),
  type: 'user',
  isCompactSummary: true,
  isVisibleInTranscriptOnly: true,
  message: { role: 'user', content: summary },
  uuid: uuid(),
  timestamp: tick(1),
});

user('Write a short changelog entry for 1.4.3.');
assistant(null, [
  {
    name: 'Read',
    input: { file_path: `${cwd}/CHANGELOG.md` },
    result: '# Changelog\n\n## 1.4.2\n- Faster checkout for large baskets.\n\n## 1.4.1\n- Fixed invoice numbering.',
  },
]);
assistant(null, [
  {
    name: 'Edit',
    input: {
      file_path: `${cwd}/CHANGELOG.md`,
      old_string: '# Changelog\n',
      new_string:
        '# Changelog\n\n## 1.4.3\n- Fixed EU order totals being off by a few cents (ORD-1187): the discount is applied before VAT and totals are rounded once, half-even.\n',
    },
    result: 'The file CHANGELOG.md has been updated.',
  },
]);
assistant('Added the 1.4.3 entry for ORD-1187 to CHANGELOG.md.');

lines.push({ type: 'summary', summary: 'Fix EU order totals (ORD-1187)', leafUuid: parent });

mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
console.log(`wrote ${out}: ${lines.length} lines, last prompt ${previousPrompt} tokens, compaction at ${before}`);
