/**
 * Claude Code session logs (`~/.claude/projects/<cwd>/<sessionId>.jsonl`), FORMATS.md §4.
 *
 * - Only the main chain is the window: the chain is followed from the leaf (`last-prompt.leafUuid`,
 *   else the last line) back through `parentUuid`, crossing compactions via `logicalParentUuid`,
 *   so rewinds and forks are not double-counted. Sidechain lines become subagent sessions.
 * - One API response is split over several lines with the same `message.id`: merged into one
 *   message, usage taken once (the last copy).
 * - `compact_boundary` + the `isCompactSummary` user line that follows are recorded as a source
 *   compaction; the summary is a region, never a history message (S0).
 * - `isMeta` lines are UI-only; unknown line types are skipped and counted.
 */
import type { Message, Part, Session, SourceCompaction } from '../model';
import type { ImportInput, Importer, JsonLine, ParseContext, Sniff } from './types';
import { ImportError } from './types';
import { anthropicParts, anthropicUsage, isRecord, num, rec, str, time, type Json } from './util';

/** Line types that carry no context and are expected; anything else unknown is counted. */
const KNOWN_NON_CONTEXT = new Set([
  'summary', 'file-history-snapshot', 'queue-operation', 'attachment', 'progress', 'last-prompt', 'custom-title',
  'ai-title', 'permission-mode', 'system',
]);

interface Node {
  readonly uuid: string;
  readonly parent: string | null;
  readonly logicalParent: string | null;
  readonly record: Json;
  readonly line: number;
  readonly raw: string;
}

export function looksLikeClaudeCode(v: unknown): boolean {
  if (!isRecord(v)) return false;
  const t = v['type'];
  return typeof v['sessionId'] === 'string' && typeof v['uuid'] === 'string' && 'parentUuid' in v && (t === 'user' || t === 'assistant' || t === 'system');
}

function detect(sniff: Sniff): boolean {
  if (sniff.shape !== 'jsonl') return false;
  if (sniff.lines.length === 0) return /"sessionId":"[^"]*".*"uuid":/.test(sniff.head.slice(0, 4096)) && /"parentUuid"/.test(sniff.head.slice(0, 4096));
  return sniff.lines.some(looksLikeClaudeCode);
}

/** Builds messages from an ordered list of chain nodes (main chain or one sidechain). */
function toMessages(nodes: readonly Node[], ctx: ParseContext, compactions?: SourceCompaction[]): { messages: Message[]; models: Map<string, number> } {
  const messages: Message[] = [];
  const byApiId = new Map<string, number>();
  const models = new Map<string, number>();
  let pendingBoundary: { trigger: SourceCompaction['trigger']; before?: number; after?: number; line: number } | null = null;

  for (const node of nodes) {
    const r = node.record;
    const type = r['type'];
    if (type === 'system') {
      if (r['subtype'] === 'compact_boundary') {
        const meta = rec(r['compactMetadata']);
        const trigger = meta['trigger'] === 'auto' || meta['trigger'] === 'manual' ? meta['trigger'] : 'unknown';
        pendingBoundary = { trigger, before: num(meta['preTokens']), after: num(meta['postTokens']), line: node.line };
        compactions?.push({ atMessage: messages.length, trigger, ...(pendingBoundary.before !== undefined ? { tokensBefore: pendingBoundary.before } : {}), ...(pendingBoundary.after !== undefined ? { tokensAfter: pendingBoundary.after } : {}), sourceLine: node.line });
      }
      continue;
    }
    if (type !== 'user' && type !== 'assistant') continue;
    const msg = rec(r['message']);
    if (r['isCompactSummary'] === true) {
      // The summary the agent continued from: a region, attached to the compaction.
      const text = anthropicParts(msg['content']).map((p) => (p.kind === 'text' ? p.text : '')).join('\n');
      const last = compactions?.[compactions.length - 1];
      if (compactions && last && pendingBoundary) compactions[compactions.length - 1] = { ...last, summary: text };
      else compactions?.push({ atMessage: messages.length, trigger: 'unknown', summary: text, sourceLine: node.line });
      pendingBoundary = null;
      continue;
    }
    if (r['isMeta'] === true) continue;
    const parts: Part[] = anthropicParts(msg['content']);
    const timestamp = time(r['timestamp']);
    if (type === 'assistant') {
      const apiId = str(msg['id']);
      const model = str(msg['model']);
      if (model && model !== '<synthetic>') models.set(model, (models.get(model) ?? 0) + 1);
      const usage = anthropicUsage(msg['usage']);
      const existing = apiId !== undefined ? byApiId.get(apiId) : undefined;
      if (existing !== undefined) {
        const prev = messages[existing]!;
        messages[existing] = {
          ...prev,
          parts: [...prev.parts, ...parts],
          ...(usage ? { usage } : {}),
          ...(ctx.keepRaw ? { raw: `${prev.raw ?? ''}\n${node.raw}` } : {}),
        };
        continue;
      }
      if (apiId !== undefined) byApiId.set(apiId, messages.length);
      messages.push({
        id: node.uuid,
        role: 'assistant',
        parts,
        ...(timestamp !== undefined ? { timestamp } : {}),
        ...(usage ? { usage } : {}),
        ...(model ? { model } : {}),
        sourceLine: node.line,
        ...(ctx.keepRaw ? { raw: node.raw } : {}),
      });
    } else {
      if (parts.length === 0) continue;
      messages.push({
        id: node.uuid,
        role: 'user',
        parts,
        ...(timestamp !== undefined ? { timestamp } : {}),
        sourceLine: node.line,
        ...(ctx.keepRaw ? { raw: node.raw } : {}),
      });
    }
    if (messages.length % 5000 === 0) ctx.progress(messages.length, 0);
  }
  return { messages, models };
}

function mostUsed(models: Map<string, number>): string | undefined {
  let best: string | undefined;
  let n = 0;
  for (const [m, c] of models) if (c > n) [best, n] = [m, c];
  return best;
}

async function parse(input: ImportInput, ctx: ParseContext): Promise<Session[]> {
  if (input.kind !== 'jsonl') throw new ImportError(ctx.name, 'Claude Code JSON lines (one record per line)');
  const nodes = new Map<string, Node>();
  const order: Node[] = [];
  const unknownTypes = new Map<string, number>();
  let leaf: string | undefined;
  let lastMain: string | undefined;
  let sessionId: string | undefined;
  let cwd: string | undefined;
  let startedAt: number | undefined;
  let title: string | undefined;
  let lines = 0;
  let duplicateUuids = 0;

  for await (const l of input.lines as AsyncIterable<JsonLine>) {
    lines++;
    const r = l.value;
    if (!isRecord(r)) {
      ctx.warn('skipped a line that is not a JSON object', l.line);
      continue;
    }
    const type = str(r['type']) ?? '';
    if (type === 'last-prompt' && typeof r['leafUuid'] === 'string') leaf = r['leafUuid'];
    if ((type === 'custom-title' || type === 'ai-title') && typeof r['title'] === 'string') title = r['title'];
    if (type === 'summary' && typeof r['summary'] === 'string') title ??= r['summary'];
    if (type !== 'user' && type !== 'assistant' && !KNOWN_NON_CONTEXT.has(type)) unknownTypes.set(type, (unknownTypes.get(type) ?? 0) + 1);
    const uuid = str(r['uuid']);
    if (!uuid) continue;
    sessionId ??= str(r['sessionId']);
    cwd ??= str(r['cwd']);
    startedAt ??= time(r['timestamp']);
    // Keep only what the window needs: the envelope and `toolUseResult` (structured output the
    // model never saw, often the biggest part of a line) are dropped here, not held to the end.
    const record: Json = { type: r['type'], isSidechain: r['isSidechain'], message: r['message'] };
    if (r['subtype'] !== undefined) record['subtype'] = r['subtype'];
    if (r['isMeta'] !== undefined) record['isMeta'] = r['isMeta'];
    if (r['isCompactSummary'] !== undefined) record['isCompactSummary'] = r['isCompactSummary'];
    if (r['compactMetadata'] !== undefined) record['compactMetadata'] = r['compactMetadata'];
    if (r['agentId'] !== undefined) record['agentId'] = r['agentId'];
    if (r['timestamp'] !== undefined) record['timestamp'] = r['timestamp'];
    const node: Node = { uuid, parent: str(r['parentUuid']) ?? null, logicalParent: str(r['logicalParentUuid']) ?? null, record, line: l.line, raw: ctx.keepRaw ? l.raw : '' };
    if (nodes.has(uuid)) duplicateUuids++;
    nodes.set(uuid, node);
    order.push(node);
    if (r['isSidechain'] !== true) lastMain = uuid;
    if (order.length % 5000 === 0) ctx.progress(order.length, 0);
  }
  if (lines === 0 || order.length === 0) throw new ImportError(ctx.name, 'Claude Code records with a uuid (user or assistant lines); found none');
  for (const [t, n] of unknownTypes) ctx.warn(`skipped ${n} line(s) of unknown type "${t}"`);

  // Walk the main chain from the leaf back to the root — unless uuids repeat (trimmed or
  // hand-edited files), where the tree cannot be trusted and file order is the best guess.
  const start = leaf !== undefined && nodes.has(leaf) && nodes.get(leaf)!.record['isSidechain'] !== true ? leaf : lastMain;
  const chain: Node[] = [];
  const seen = new Set<string>();
  for (let cur = start !== undefined ? nodes.get(start) : undefined; cur && !seen.has(cur.uuid); ) {
    seen.add(cur.uuid);
    chain.push(cur);
    const next = cur.parent ?? (cur.record['subtype'] === 'compact_boundary' ? cur.logicalParent : null);
    if (next !== null && !nodes.has(next)) ctx.warn(`chain broken: parent ${next} is not in the file`, cur.line);
    cur = next !== null ? nodes.get(next) : undefined;
  }
  chain.reverse();
  if (duplicateUuids > 0) {
    ctx.warn(`${duplicateUuids} line(s) reuse a uuid: the parentUuid chain is ambiguous, so the main chain follows file order`);
    chain.length = 0;
    seen.clear();
    for (const n of order) {
      if (n.record['isSidechain'] === true) continue;
      chain.push(n);
      seen.add(n.uuid);
    }
  }
  const offChain = order.filter((n) => n.record['isSidechain'] !== true && !seen.has(n.uuid) && (n.record['type'] === 'user' || n.record['type'] === 'assistant')).length;
  if (offChain > 0) ctx.warn(`${offChain} message line(s) are off the main chain (rewinds or forks) and were left out`);

  const compactions: SourceCompaction[] = [];
  const main = toMessages(chain, ctx, compactions);

  // Sidechains: every sidechain root starts one subagent session.
  const subagents: Session[] = [];
  const side = order.filter((n) => n.record['isSidechain'] === true);
  if (side.length > 0) {
    const groups = new Map<string, Node[]>();
    const rootOf = new Map<string, string>();
    for (const n of side) {
      const parentRoot = n.parent !== null ? rootOf.get(n.parent) : undefined;
      const root = parentRoot ?? str(n.record['agentId']) ?? n.uuid;
      rootOf.set(n.uuid, root);
      let g = groups.get(root);
      if (!g) groups.set(root, (g = []));
      g.push(n);
    }
    let k = 0;
    for (const [root, group] of groups) {
      const sub = toMessages(group, ctx);
      if (sub.messages.length === 0) continue;
      const model = mostUsed(sub.models);
      subagents.push({
        id: `${sessionId ?? ctx.name}/subagent-${++k}-${root.slice(0, 8)}`,
        format: 'claude-code',
        title: `subagent ${k}`,
        ...(model ? { model } : {}),
        provider: 'anthropic',
        systemPrompt: null,
        tools: [],
        messages: sub.messages,
        sourceCompactions: [],
        subagents: [],
        warnings: [],
      });
    }
  }

  const model = mostUsed(main.models);
  ctx.progress(main.messages.length, 1);
  return [
    {
      id: sessionId ?? ctx.name,
      format: 'claude-code',
      ...(title ? { title } : {}),
      ...(model ? { model } : {}),
      provider: 'anthropic',
      // Claude Code does not log its system prompt or tool definitions.
      systemPrompt: null,
      tools: [],
      messages: main.messages,
      sourceCompactions: compactions,
      subagents,
      ...(startedAt !== undefined ? { startedAt } : {}),
      ...(cwd ? { cwd } : {}),
      warnings: [],
    },
  ];
}

export const importer: Importer = { id: 'claude-code', label: 'Claude Code session (JSONL)', detect, parse };
