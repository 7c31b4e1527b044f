/**
 * Picks the transport at start-up: the Electron preload bridge when present, else HTTP against
 * the server that served this page (`ctxscope serve`, token from the page URL). The rest of the
 * renderer only sees `api: ApiClient` and knows nothing else of its host.
 */
import type { ApiClient } from '../../../shared/api';
import { createHttpClient } from './http';
import { createIpcClient, type PreloadBridge } from './ipc';

declare global {
  interface Window {
    ctxscope?: PreloadBridge;
  }
}

function pickTransport(): ApiClient {
  if (window.ctxscope) return createIpcClient(window.ctxscope);
  const params = new URLSearchParams(window.location.search);
  const token = params.get('token') ?? window.sessionStorage.getItem('ctxscope-token') ?? '';
  if (token) window.sessionStorage.setItem('ctxscope-token', token);
  return createHttpClient(window.location.origin, token);
}

export const api: ApiClient = pickTransport();
