/**
 * `ctxscope inspect FILE`: what a transcript holds — detected format, and per session the
 * messages by role, turns, LLM calls, tool calls, orphans, token counts by region, whether
 * the provider's usage is there, and the compactions the original agent did.
 */
import type { Command } from 'commander';
import type { Session } from '../../core/model';
import { stepIndices } from '../../core/model';
import { calibrationReport, type CalibrationReport } from '../../core/tokens/calibrate';
import { CALIBRATION_BASE, countWith, defaultTokenizerFor, getTokenizer } from '../../core/tokens/index';
import { pairToolCalls, turnStarts } from '../../core/turns';
import { CliError, EXIT } from '../errors';
import { loadFile } from '../load';
import { table } from '../table';

export interface InspectSession {
  id: string;
  title: string | null;
  model: string | null;
  messages: { system: number; user: number; assistant: number; tool: number };
  turns: number;
  steps: number;
  toolCalls: number;
  orphans: { calls: number; results: number };
  tokens: { tokenizer: string; approximate: boolean; system: number; tools: number; history: number; unlogged: number };
  reportedUsage: boolean;
  /** How well the calibrated tokenizer explains the reported prompts, scored in and out of sample (core/tokens/calibrate.ts), or why it fell back. */
  calibration: CalibrationReport | { fallback: string };
  sourceCompactions: number;
  subagents: number;
}

export interface InspectReport {
  file: string;
  format: string;
  sessions: InspectSession[];
  warnings: string[];
}

export function inspectSession(s: Session, tokenizerId: string | undefined): InspectSession {
  const roles = { system: 0, user: 0, assistant: 0, tool: 0 };
  let toolCalls = 0;
  for (const m of s.messages) {
    // Anthropic-shaped tool results arrive as user-role messages; they are tool output all the same.
    const toolOnly = m.role === 'user' && m.parts.length > 0 && m.parts.every((p) => p.kind === 'tool_result');
    roles[toolOnly ? 'tool' : m.role]++;
    for (const p of m.parts) if (p.kind === 'tool_call') toolCalls++;
  }
  const hasUsage = s.messages.some((m) => m.usage !== undefined);
  const id = tokenizerId ?? defaultTokenizerFor(s.model, hasUsage);
  try {
    getTokenizer(id);
  } catch (e) {
    throw new CliError(`--tokenizer: ${e instanceof Error ? e.message : String(e)}`, EXIT.usage);
  }
  const counts = countWith(s, id);
  // Calibration is judged against the base tokenizer's own counts, never the fitted ones.
  const calibration = calibrationReport(s, id === CALIBRATION_BASE ? counts : countWith(s, CALIBRATION_BASE));
  const pairs = pairToolCalls(s.messages);
  return {
    id: s.id,
    title: s.title ?? null,
    model: s.model ?? null,
    messages: roles,
    turns: turnStarts(s.messages).length,
    steps: stepIndices(s.messages).length,
    toolCalls,
    orphans: { calls: pairs.orphanCalls.length, results: pairs.orphanResults.length },
    tokens: {
      tokenizer: counts.tokenizer,
      approximate: counts.approximate,
      system: counts.system,
      tools: counts.tools,
      history: counts.prefix[counts.prefix.length - 1] ?? 0,
      unlogged: counts.unlogged,
    },
    reportedUsage: hasUsage,
    calibration,
    sourceCompactions: s.sourceCompactions.length,
    subagents: s.subagents.length,
  };
}

const pct = (v: number): string => `${v.toFixed(1)}%`;

/** One line: the fit, its in-sample and out-of-sample median errors, or why it fell back. */
export function calibrationLine(c: InspectSession['calibration']): string {
  if ('fallback' in c) return `fallback — ${c.fallback}`;
  const out = c.outOfSampleError === null ? 'n/a (too few calls)' : pct(c.outOfSampleError);
  return `ratio ${c.ratio.toFixed(3)}, overhead ${c.overhead} tokens over ${c.calls} call(s); median error ${pct(c.inSampleError)} in sample, ${out} out of sample (fit on the first half, scored on the second)`;
}

export function registerInspect(program: Command): void {
  program
    .command('inspect')
    .description('show what a transcript holds: format, messages, turns, LLM calls, tool calls, tokens per region')
    .argument('<file>', 'transcript file')
    .option('--format <id>', 'skip detection and read the file as this format')
    .option('--tokenizer <id>', 'tokenizer for the counts (default: the best one for the model)')
    .option('--json', 'print JSON')
    .action(async (file: string, opts: { format?: string; tokenizer?: string; json?: boolean }) => {
      const outcome = await loadFile(file, opts.format);
      const report: InspectReport = {
        file,
        format: outcome.format,
        sessions: outcome.sessions.map((s) => inspectSession(s, opts.tokenizer)),
        warnings: outcome.warnings,
      };
      if (opts.json) {
        process.stdout.write(JSON.stringify(report, null, 2) + '\n');
        return;
      }
      process.stdout.write(`${file}: ${report.format}, ${report.sessions.length} session(s)\n`);
      process.stdout.write(
        table(
          ['session', 'model', 'user', 'asst', 'tool', 'turns', 'calls', 'tool calls', 'orphans', 'system', 'tools', 'history', 'tokenizer', 'usage', 'compactions'],
          report.sessions.map((s) => [
            s.title ?? s.id,
            s.model ?? '?',
            s.messages.user,
            s.messages.assistant,
            s.messages.tool,
            s.turns,
            s.steps,
            s.toolCalls,
            s.orphans.calls + s.orphans.results,
            s.tokens.system,
            s.tokens.tools,
            s.tokens.history,
            s.tokens.tokenizer + (s.tokens.approximate ? ' ~' : ''),
            s.reportedUsage ? 'yes' : 'no',
            s.sourceCompactions,
          ]),
        ),
      );
      for (const s of report.sessions) process.stdout.write(`calibration${report.sessions.length > 1 ? ` (${s.title ?? s.id})` : ''}: ${calibrationLine(s.calibration)}\n`);
      if (report.warnings.length) process.stdout.write(`${report.warnings.length} warning(s); first: ${report.warnings.slice(0, 3).join(' | ')}\n`);
    });
}
