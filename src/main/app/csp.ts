/**
 * Which responses get the Content-Security-Policy header. Only the built page (file:// under
 * out/renderer) gets it: `npm run dev` serves the page from Vite's dev server, whose module
 * graph and hot reload need inline scripts and a websocket, so a strict header there leaves a
 * blank window. Everything else the built app loads is blocked by the policy itself.
 */
export function cspHeaderFor(url: string, builtRendererDirUrl: string, policy: string): string | undefined {
  const dir = builtRendererDirUrl.endsWith('/') ? builtRendererDirUrl : builtRendererDirUrl + '/';
  return url.startsWith('file://') && url.startsWith(dir) ? policy : undefined;
}

/** Response headers with the CSP set when `cspHeaderFor` says so, untouched otherwise. */
export function withCsp(
  headers: Record<string, string | string[]> | undefined,
  url: string,
  builtRendererDirUrl: string,
  policy: string,
): Record<string, string | string[]> | undefined {
  const csp = cspHeaderFor(url, builtRendererDirUrl, policy);
  if (csp === undefined) return headers;
  const out: Record<string, string | string[]> = {};
  // A header of another case would otherwise sit beside ours and be combined with it.
  for (const [k, v] of Object.entries(headers ?? {})) if (k.toLowerCase() !== 'content-security-policy') out[k] = v;
  out['Content-Security-Policy'] = [csp];
  return out;
}

/**
 * `npm run dev` only: the page's own CSP <meta> (src/renderer/index.html, kept in the build) is
 * removed from the page Vite's dev server sends, because that page needs an inline React-refresh
 * preamble and an HMR websocket. Used by electron.vite.config.ts as a serve-only plugin.
 */
export function withoutCspMeta(html: string): string {
  return html.replace(/<meta\s+http-equiv=["']Content-Security-Policy["'][^>]*>\s*/gi, '');
}
