/** The contract over Electron IPC: the preload's `window.ctxscope` bridge, unwrapped. */
import {
  ApiError,
  METHOD_NAMES,
  answerOf,
  isWrittenAhead,
  type ApiClient,
  type Envelope,
  type EventName,
  type EventPayload,
} from '../../../shared/api';

/** What the preload exposes (src/preload/index.ts): one function per method, plus `on`. */
export interface PreloadBridge {
  readonly [method: string]: unknown;
  on(event: string, listener: (payload: unknown) => void): () => void;
  /** The path of a File dropped on (or chosen in) the page: Electron's webUtils.getPathForFile. */
  pathForFile?(file: File): string;
}

export function unwrap<T>(envelope: Envelope<T>): T {
  if (envelope.ok) return envelope.value;
  throw new ApiError(envelope.error.code, envelope.error.message);
}

export function createIpcClient(bridge: PreloadBridge): ApiClient {
  const client: Record<string, unknown> = {};
  for (const name of METHOD_NAMES) {
    const call = bridge[name];
    if (typeof call !== 'function') throw new Error(`preload bridge lacks method ${name}`);
    // A WrittenAhead method's answer may come as the JSON the replay worker wrote (JsonText): parsed here.
    const read = isWrittenAhead(name) ? answerOf : <T>(v: T): T => v;
    client[name] = async (input: unknown) => read(unwrap(await (call as (i: unknown) => Promise<Envelope<unknown>>)(input ?? {})));
  }
  client.on = <E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void) =>
    bridge.on(event, listener as (payload: unknown) => void);
  return client as unknown as ApiClient;
}
