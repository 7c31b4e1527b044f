/**
 * `ctxscope serve [FILE...]`: the app's UI in a browser, over the same handler table as the
 * desktop app. HTTP on 127.0.0.1 only, a random free port unless --port, a per-run token.
 * The first line printed is the URL to open.
 */
import { existsSync, mkdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { createHost } from '../../main/host/handlers';
import { agentLogRoots, ImportAllowList } from '../../main/host/import-allow';
import { CliError, EXIT } from '../errors';
import { checkRegularFile } from '../load';
import { defaultDbPath } from '../../main/paths';
import { replayWorkerSource } from '../../main/host/replay-client';
import { builtWorkerFile, packageVersion, rendererDir, sampleFile } from '../../main/resources';
import { startHttpHost, type HttpHost } from '../../main/transport/http';
import { uploadRoute, type Route } from '../../main/transport/upload';
import { Uploads, uploadLimit, uploadsDirFor } from '../../main/host/uploads';
import { UploadRefs, withUploadRefs } from '../../main/host/upload-refs';
import { ApiError } from '../../shared/api';

export interface ServeOptions {
  readonly port?: string;
  readonly db?: string;
}

/** Thrown for problems the user can fix; the CLI prints the message and exits 2. */
export class ServeUsageError extends Error {}

export async function serve(files: readonly string[], options: ServeOptions): Promise<HttpHost> {
  const port = options.port === undefined ? 0 : Number(options.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new ServeUsageError(`--port: expected a port number 0-65535, got "${options.port}"`);
  for (const f of files) {
    if (!existsSync(f)) throw new ServeUsageError(`${f}: no such file`);
    checkRegularFile(f);
  }
  // importFiles over HTTP reads only these files, uploads and the agent-log roots.
  const importAllow = new ImportAllowList();
  for (const f of files) importAllow.allowFile(f);
  for (const root of agentLogRoots()) importAllow.allowRoot(root);
  const dbPath = options.db ?? defaultDbPath();
  // Uploads (the browser's Open… and drop) are kept beside the database; earlier ones stay importable.
  // Resolved, so the paths the import reports are the ones the upload names are remembered by.
  const uploadsDir = ((dir) => (dir ? (mkdirSync(dir, { recursive: true }), realpathSync(dir)) : null))(uploadsDirFor(dbPath));
  if (uploadsDir) importAllow.allowRoot(uploadsDir);
  const staticDir = rendererDir();
  if (!existsSync(join(staticDir, 'index.html'))) {
    throw new ServeUsageError(`the UI is not built (${staticDir} is missing): run \`npm run build\` first, or \`npm run serve\``);
  }

  // The host emits events through the HTTP server, which is created after the host.
  const sink: { http?: HttpHost } = {};
  let host: Awaited<ReturnType<typeof createHost>>;
  const uploads = new Uploads(importAllow, (paths) => host.handlers.importFiles({ paths }));
  // The page never learns where uploads are kept: they are `upload:<name>` to it (host/upload-refs.ts).
  const refs = new UploadRefs(uploadsDir);
  try {
    host = await createHost({
      dbPath,
      hostKind: 'serve',
      version: packageVersion(),
      initialFiles: files.length > 0 ? [...files] : [sampleFile()],
      importWorkerFile: builtWorkerFile('import-worker', 'cli'),
      countWorkerFile: builtWorkerFile('count-worker', 'cli'),
      replayWorkerFile: builtWorkerFile('replay-worker', 'cli') ?? replayWorkerSource(),
      emit: (event, payload) => sink.http?.emit(event, refs.scrubDeep(uploads.event(event, payload))),
      importAllow,
    });
  } catch (e) {
    // A file given on the command line that does not import is bad input (exit 3), like everywhere else.
    if (e instanceof ApiError && e.code === 'bad_input') throw new CliError(e.message, EXIT.badInput);
    throw e;
  }
  const routes: Record<string, Route> = {};
  if (uploadsDir) {
    routes['/api/upload'] = uploadRoute({
      dir: uploadsDir,
      maxBytes: uploadLimit(),
      accept: (stored, name) => uploads.accept(stored, name),
      abandon: (jobId) => void host.handlers.cancelImport({ jobId }),
    });
  }
  const http = await startHttpHost({
    handlers: withUploadRefs(host.handlers, refs),
    staticDir,
    port,
    routes,
    log: (m) => process.stderr.write(m + '\n'),
  });
  sink.http = http;
  const stop = (): void => {
    void Promise.all([http.close(), host.close()]).finally(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return http;
}

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('serve the UI on http://127.0.0.1 (random port, per-run token) and open the given transcripts')
    .argument('[files...]', 'transcripts to open (default: the bundled sample)')
    .option('--port <port>', 'port to listen on (default: a random free port)')
    .option('--db <path>', "session database (default: the app's user-data folder, or $CTXSCOPE_DB)")
    .action(async (files: string[], options: ServeOptions) => {
      const http = await serve(files, options);
      process.stdout.write(`Context Scope at ${http.url}\n`);
    });
}
