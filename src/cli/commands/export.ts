/**
 * `ctxscope export FILE --policy P [--at STEP|end] --to FORMAT [--redact] [-o OUT]`: the compacted
 * history at a step of a replay (or the original session without --policy), or a replay report.
 */
import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import {
  exportMessages,
  exportRedacted,
  exportReport,
  sessionInput,
  windowAt,
  type ExportInput,
  type Exported,
  type TranscriptTarget,
} from '../../core/export/index';
import { PatternError } from '../../core/pattern';
import { replay } from '../../core/replay/index';
import { EXPORT_TARGETS } from '../../shared/api';
import { secretlintScanner } from '../../main/secret-scan';
import { CliError, EXIT } from '../errors';
import { writeRaw } from '../terminal';
import { loadFile, pickSession } from '../load';
import { cliConfig, type ReplayCliOptions } from './replay';

const collect = (v: string, prev: string[] = []): string[] => [...prev, v];

/** The export, redacted (secretlint's rule set, built-ins, the user's patterns) when asked. */
function writeExport(
  input: ExportInput,
  to: TranscriptTarget,
  redact: boolean,
  patterns: readonly string[],
  title: string,
): Promise<Exported> | Exported {
  return redact ? exportRedacted(input, to, { patterns, title, scanner: secretlintScanner }) : exportMessages(input, to, { title });
}

export function registerExport(program: Command): void {
  program
    .command('export')
    .description('export a session, or its compacted history at a replay step, or a replay report')
    .argument('<file>', 'transcript file')
    .requiredOption('--to <format>', EXPORT_TARGETS.join(' | '))
    .option('--policy <id>', 'replay under this policy first (required for reports)')
    .option('--at <step|end>', 'the replay step whose window to export', 'end')
    .option('--set <key=value>', 'override a config key (repeatable)', collect)
    .option('--config <file.json>', 'config file under the policy')
    .option('--session <id|n>', 'which session of the file (default: the first)')
    .option('--format <id>', 'skip detection and read the file as this format')
    .option('--redact', 'replace API keys, tokens and e-mail addresses (and --redact-pattern matches)')
    .option('--redact-pattern <text|/re/>', 'also redact this (repeatable; implies --redact)', collect)
    .option('-o, --out <file>', 'write here instead of stdout')
    .action(
      async (
        file: string,
        opts: ReplayCliOptions & { to: string; policy?: string; at: string; redact?: boolean; redactPattern?: string[]; out?: string },
      ) => {
        const to = opts.to as (typeof EXPORT_TARGETS)[number];
        if (!EXPORT_TARGETS.includes(to))
          throw new CliError(`--to: expected one of ${EXPORT_TARGETS.join(', ')}, got "${opts.to}"`, EXIT.usage);
        const at = opts.at === 'end' ? 'end' : Number(opts.at);
        if (at !== 'end' && (!Number.isInteger(at) || at < 0))
          throw new CliError(`--at: expected a step number or "end", got "${opts.at}"`, EXIT.usage);
        const isReport = to === 'report-json' || to === 'report-csv';
        if (isReport && !opts.policy) throw new CliError(`--to ${to}: needs --policy (a report describes a replay)`, EXIT.usage);
        const config = opts.policy ? cliConfig(opts.policy, opts) : undefined;
        const outcome = await loadFile(file, opts.format);
        const session = pickSession(outcome.sessions, opts.session, file);
        // A pattern to redact is a request to redact: it never leaves the export in clear.
        const redact = (opts.redact ?? false) || (opts.redactPattern ?? []).length > 0;
        let text: string;
        let redactions = 0;
        try {
          if (!config) {
            const e = await writeExport(sessionInput(session), to as TranscriptTarget, redact, opts.redactPattern ?? [], file);
            text = e.text;
            redactions = e.redactions;
          } else {
            const result = await replay(session, config);
            if (isReport) text = exportReport(result, to as 'report-json', session).text;
            else {
              let w: ReturnType<typeof windowAt>;
              try {
                w = windowAt(result, session.messages, at);
              } catch (e) {
                // Only windowAt's "step N is out of range" is about --at (a stack overflow is a RangeError too).
                if (e instanceof RangeError) throw new CliError(`--at: ${e.message}`, EXIT.usage);
                throw e;
              }
              const e = await writeExport(
                sessionInput(session, w.messages, w.summary),
                to as TranscriptTarget,
                redact,
                opts.redactPattern ?? [],
                `${file} under ${opts.policy} at step ${opts.at}`,
              );
              text = e.text;
              redactions = e.redactions;
            }
          }
        } catch (e) {
          if (e instanceof PatternError) throw new CliError(`--redact-pattern: ${e.message}`, EXIT.usage);
          throw e;
        }
        if (opts.out) writeFileSync(opts.out, text);
        // The export is data: written as is when stdout is a file or a pipe, made safe for a terminal.
        else if (process.stdout.isTTY) process.stdout.write(text.endsWith('\n') ? text : text + '\n');
        else writeRaw(process.stdout, text.endsWith('\n') ? text : text + '\n');
        if (redact)
          process.stderr.write(
            `redacted ${redactions} match(es)${opts.redact ? '' : ' (--redact-pattern implies --redact: built-in rules applied too)'}\n`,
          );
      },
    );
}
