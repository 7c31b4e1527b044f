/**
 * Picks the transport at start-up: the Electron preload bridge when present, else HTTP against
 * the server that served this page (`ctxscope serve`, token from the page URL). The rest of the
 * renderer only sees `api: ApiClient` and knows nothing else of its host.
 */
import type { ApiClient } from '../../../shared/api';
import { createHttpClient } from './http';
import { createIpcClient, type PreloadBridge } from './ipc';
import { pathImporter, uploadImporter, type FileImporter } from './files';

declare global {
  interface Window {
    ctxscope?: PreloadBridge;
  }
}

function pickTransport(): { api: ApiClient; files: FileImporter | null } {
  if (window.ctxscope) {
    const api = createIpcClient(window.ctxscope);
    const bridge = window.ctxscope;
    return { api, files: typeof bridge.pathForFile === 'function' ? pathImporter(api, (f) => bridge.pathForFile!(f)) : null };
  }
  const params = new URLSearchParams(window.location.search);
  const token = params.get('token') ?? window.sessionStorage.getItem('ctxscope-token') ?? '';
  if (token) window.sessionStorage.setItem('ctxscope-token', token);
  return { api: createHttpClient(window.location.origin, token), files: uploadImporter(window.location.origin, token) };
}

const transport = pickTransport();
export const api: ApiClient = transport.api;
/** How files chosen in the page (file input, drop) reach the host; null when this host takes none. */
export const files: FileImporter | null = transport.files;
