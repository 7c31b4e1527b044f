/** A worker thread of `ctxscope inspect` in folder mode: inspects one file per message (see inspectFiles). */
import { parentPort } from 'node:worker_threads';
import { CliError } from './errors';
import { inspectTranscript, type InspectJob } from './commands/inspect';

parentPort?.on('message', (job: InspectJob) => {
  inspectTranscript(job).then(
    (result) => parentPort?.postMessage(result),
    // A usage error (an unknown --tokenizer) stops the whole command; the parent rethrows it.
    (e: unknown) =>
      parentPort?.postMessage({
        kind: 'failed',
        file: job.file,
        error: String(e),
        ...(e instanceof CliError ? { usageError: e.message } : {}),
      }),
  );
});
