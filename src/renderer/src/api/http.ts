/**
 * The contract over HTTP (`ctxscope serve`): POST /api/<method> with the per-run token as a
 * bearer header; events arrive as server-sent events on GET /api/events, read with fetch so the
 * token travels in a header rather than a URL.
 */
import { ApiError, EVENT_NAMES, METHOD_NAMES, type ApiClient, type Envelope, type EventName, type EventPayload } from '../../../shared/api';
import { unwrap } from './ipc';

type Listener = (payload: unknown) => void;

export function createHttpClient(baseUrl: string, token: string): ApiClient {
  const headers = { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` };
  const client: Record<string, unknown> = {};
  for (const name of METHOD_NAMES) {
    client[name] = async (input: unknown) => {
      const res = await fetch(`${baseUrl}/api/${name}`, { method: 'POST', headers, body: JSON.stringify(input ?? {}) });
      let envelope: Envelope<unknown>;
      try {
        envelope = (await res.json()) as Envelope<unknown>;
      } catch {
        throw new ApiError('internal', `${name}: HTTP ${res.status} without a JSON answer`);
      }
      return unwrap(envelope);
    };
  }

  const listeners = new Map<string, Set<Listener>>();
  let streaming = false;
  const startStream = (): void => {
    if (streaming) return;
    streaming = true;
    void readEvents(baseUrl, token, (event, payload) => {
      for (const l of listeners.get(event) ?? []) l(payload);
    }).finally(() => {
      streaming = false;
      // Reconnect after a pause if anybody still listens (the server restarted, the laptop slept).
      if ([...listeners.values()].some((s) => s.size > 0)) setTimeout(startStream, 2000);
    });
  };
  client.on = <E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void) => {
    if (!EVENT_NAMES.includes(event)) return () => {};
    const set = listeners.get(event) ?? new Set<Listener>();
    set.add(listener as Listener);
    listeners.set(event, set);
    startStream();
    return () => set.delete(listener as Listener);
  };
  return client as unknown as ApiClient;
}

async function readEvents(baseUrl: string, token: string, deliver: (event: string, payload: unknown) => void): Promise<void> {
  try {
    const res = await fetch(`${baseUrl}/api/events`, { headers: { Authorization: `Bearer ${token}` } });
    if (!res.ok || !res.body) return;
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = /^event: (.*)$/m.exec(frame)?.[1];
        const data = /^data: (.*)$/m.exec(frame)?.[1];
        if (event && data) {
          try {
            deliver(event, JSON.parse(data));
          } catch {
            // A malformed frame is dropped; the stream goes on.
          }
        }
      }
    }
  } catch {
    // Connection lost: the caller reconnects.
  }
}
