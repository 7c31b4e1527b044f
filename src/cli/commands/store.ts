/**
 * `ctxscope import FILE... [--db PATH]` stores sessions (progress on stderr, a bar when stderr is a
 * terminal); `ctxscope sessions [--db PATH] [--json]` lists what is stored.
 */
import { existsSync, statSync } from 'node:fs';
import type { Command } from 'commander';
import { ImportError } from '../../core/import/types';
import { defaultDbPath } from '../../main/paths';
import { importFileToStore, openStore } from '../../main/store/index';
import { CliError, EXIT } from '../errors';
import { checkFormat } from '../load';
import { progressLine } from '../progress';
import { table } from '../table';
import { expandInputs } from '../inputs';

export function registerStore(program: Command): void {
  program
    .command('import')
    .description('store transcripts in the session database')
    .argument('<files...>', 'transcript files, directories or globs')
    .option('--db <path>', "session database (default: the app's user-data folder, or $CTXSCOPE_DB)")
    .option('--format <id>', 'skip detection and read the files as this format')
    .option('--tolerant', 'skip JSONL lines that are not valid JSON (reported)')
    .option('--json', 'print JSON')
    .action(async (inputs: string[], opts: { db?: string; format?: string; tolerant?: boolean; json?: boolean }) => {
      const format = checkFormat(opts.format);
      const files = await expandInputs(inputs);
      const store = openStore(opts.db ?? defaultDbPath(), { check: true });
      const results = [];
      let failures = 0;
      try {
        for (const file of files) {
          const size = statSync(file).size;
          const started = performance.now();
          try {
            const r = await importFileToStore(store, file, {
              ...(format ? { format } : {}),
              tolerant: opts.tolerant ?? false,
              onProgress: (p) => progressLine(file, p.bytes, size, started),
            });
            progressLine(file, size, size, started, true);
            results.push({ file, ...r });
            if (!opts.json)
              process.stderr.write(
                `${file}: ${r.reused ? 'already stored' : `${r.format}, ${r.sessionIds.length} session(s), ${r.messages.toLocaleString('en-US')} messages`}\n`,
              );
          } catch (e) {
            progressLine(file, 0, size, started, true);
            if (!(e instanceof ImportError)) throw e;
            failures++;
            process.stderr.write(`ctxscope: ${e.message}\n`);
            results.push({ file, error: e.message });
          }
        }
      } finally {
        store.close();
      }
      if (opts.json) process.stdout.write(JSON.stringify(results, null, 2) + '\n');
      if (failures > 0) throw new CliError(`${failures} of ${files.length} file(s) could not be imported`, EXIT.badInput);
    });

  program
    .command('sessions')
    .description('list the sessions stored in the database')
    .option('--db <path>', "session database (default: the app's user-data folder, or $CTXSCOPE_DB)")
    .option('--json', 'print JSON')
    .action((opts: { db?: string; json?: boolean }) => {
      const path = opts.db ?? defaultDbPath();
      if (!existsSync(path))
        throw new CliError(`${path}: no session database yet (import something first: ctxscope import FILE)`, EXIT.usage);
      const store = openStore(path, { check: true });
      try {
        const rows = store.listSessions();
        if (opts.json) {
          process.stdout.write(JSON.stringify(rows, null, 2) + '\n');
          return;
        }
        process.stdout.write(
          table(
            ['id', 'title', 'format', 'model', 'messages', 'calls', 'turns', 'usage', 'source'],
            rows.map((r) => [
              r.id.slice(0, 8),
              (r.title ?? '').slice(0, 40),
              r.format,
              r.model ?? '?',
              r.messageCount,
              r.stepCount,
              r.turnCount,
              r.hasUsage ? 'yes' : 'no',
              r.sourcePath,
            ]),
          ),
        );
      } finally {
        store.close();
      }
    });
}
