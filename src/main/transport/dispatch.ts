/**
 * The one place where a raw request (from IPC or HTTP) becomes a handler call: the method name
 * is checked against the contract, the payload validated with the method's zod schema, and
 * every outcome wrapped in an Envelope. Both transports use this, so they cannot diverge.
 */
import type { z } from 'zod';
import { ApiError, methods, type ApiErrorCode, type Envelope, type Handlers, type MethodName } from '../../shared/api';

export function isMethodName(name: string): name is MethodName {
  return Object.prototype.hasOwnProperty.call(methods, name);
}

/** Formats a zod error as one line: `field: what was expected`. */
function describeZodError(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length ? issue.path.join('.') : 'input'}: ${issue.message}`)
    .join('; ');
}

export type Logger = (message: string) => void;

const BAD_INPUT_ERRORS = new Set(['ImportError', 'ConfigError', 'PatternError', 'SummarizerSetupError']);

export async function dispatch(handlers: Handlers, name: string, payload: unknown, log: Logger = () => {}): Promise<Envelope<unknown>> {
  if (!isMethodName(name)) return fail('bad_input', `unknown method "${name.slice(0, 64)}"`);
  const parsed = methods[name].safeParse(payload ?? {});
  if (!parsed.success) return fail('bad_input', `${name}: ${describeZodError(parsed.error)}`);
  try {
    // The schema and the handler are indexed by the same key; TypeScript cannot correlate
    // the two through a union, so the call goes through one narrow, checked cast.
    const handler = handlers[name] as (args: unknown) => Promise<unknown>;
    return { ok: true, value: await handler(parsed.data) };
  } catch (err) {
    if (err instanceof ApiError) return fail(err.code, err.message);
    const message = err instanceof Error ? err.message : String(err);
    // Bad-input errors from the engine carry a user-facing message already: an unreadable
    // transcript, a config or pattern the engine refuses, a summarizer endpoint that is not
    // allowed, a pipeline naming a strategy this host does not have (`custom:…`; the app never
    // loads user code), a needle it cannot compile.
    if (err instanceof Error && (BAD_INPUT_ERRORS.has(err.name) || /^(pipeline: |needle )/.test(err.message)))
      return fail('bad_input', message);
    log(`${name} failed: ${err instanceof Error && err.stack ? err.stack : message}`);
    return fail('internal', `${name} failed: ${message}`);
  }
}

function fail(code: ApiErrorCode, message: string): Envelope<never> {
  return { ok: false, error: { code, message } };
}
