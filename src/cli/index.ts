/**
 * The `ctxscope` command. Exit codes (stable, for scripts and CI):
 * 0 ok · 2 usage error · 3 bad input (`FILE:LINE: what was expected`) · 4 failed assertion · 1 anything else.
 */
import { Command, CommanderError } from 'commander';
import { ImportError } from '../core/import/types';
import { ALLOW_ENV, allowSummarizerUrl, SummarizerSetupError } from '../main/summarizer';
import { packageVersion } from '../main/resources';
import { registerExport } from './commands/export';
import { registerFleet } from './commands/fleet';
import { registerInspect } from './commands/inspect';
import { registerReplay } from './commands/replay';
import { registerProbe } from './commands/probe';
import { registerServe, ServeUsageError } from './commands/serve';
import { registerStore } from './commands/store';
import { registerTune } from './commands/tune';
import { CliError, EXIT } from './errors';
import { installOutputGuard } from './terminal';

export function buildProgram(): Command {
  const program = new Command();
  program
    .name('ctxscope')
    .description("Context Scope: see how an LLM agent's context window filled, and replay it under other policies")
    .version(packageVersion())
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) })
    .option(
      '--allow-summarizer-url <url>',
      'let a policy or config file send transcripts to this summarizer endpoint (repeatable; no key goes there unless one is bound to it)',
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .hook('preAction', (command) => {
      const urls = (command.opts() as { allowSummarizerUrl?: string[] }).allowSummarizerUrl ?? [];
      for (const url of urls) {
        try {
          allowSummarizerUrl(url);
        } catch (e) {
          throw new CliError(`--allow-summarizer-url: ${e instanceof SummarizerSetupError ? e.message : String(e)}`, EXIT.usage);
        }
      }
      // Batch replays build their summarizers on worker threads, which inherit the environment.
      if (urls.length > 0) process.env[ALLOW_ENV] = [process.env[ALLOW_ENV] ?? '', ...urls].join(' ').trim();
    });
  registerInspect(program);
  registerReplay(program);
  registerExport(program);
  registerStore(program);
  registerServe(program);
  registerTune(program);
  registerFleet(program);
  registerProbe(program);
  return program;
}

export async function main(argv: readonly string[]): Promise<number> {
  installOutputGuard();
  const program = buildProgram();
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return EXIT.ok;
  } catch (error) {
    return reportError(error);
  }
}

function reportError(error: unknown): number {
  if (error instanceof CommanderError) {
    // --help and --version end here too, with exit code 0.
    return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  }
  if (error instanceof CliError) {
    process.stderr.write(`ctxscope: ${error.message}\n`);
    return error.exitCode;
  }
  if (error instanceof ServeUsageError) {
    process.stderr.write(`ctxscope: ${error.message}\n`);
    return EXIT.usage;
  }
  if (error instanceof ImportError || error instanceof SummarizerSetupError) {
    process.stderr.write(`ctxscope: ${error.message}\n`);
    return EXIT.badInput;
  }
  process.stderr.write(`ctxscope: ${error instanceof Error ? error.message : String(error)}\n`);
  return EXIT.other;
}

// `ctxscope … | head` closes stdout early: that is the reader's choice, not an error.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(0);
  throw e;
});

const invokedDirectly = process.argv[1] !== undefined && /(?:^|[\\/])(?:index\.(?:js|ts)|ctxscope(?:\.mjs)?)$/.test(process.argv[1]);
if (invokedDirectly && process.env['CTXSCOPE_NO_MAIN'] !== '1') {
  void main(process.argv.slice(2)).then((code) => {
    // serve keeps running: only exit when the command finished with a code to report.
    if (code !== EXIT.ok || !process.argv.slice(2).includes('serve')) process.exitCode = code;
  });
}
