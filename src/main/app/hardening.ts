/**
 * Electron's security checklist for every web contents: no navigation away from the app's page,
 * no redirects, no <webview>, no new windows (documentation links from links.ts open in the OS
 * browser instead), and no permission is ever granted or reported as granted.
 */
import type { Session, WebContents } from 'electron';
import { DOCUMENTATION_URLS, isDocumentationLink } from './links';

type Contents = Pick<WebContents, 'on' | 'setWindowOpenHandler'>;

export function guardContents(
  contents: Contents,
  isOwnPage: (url: string) => boolean,
  openExternal: (url: string) => void,
  allowed: readonly string[] = DOCUMENTATION_URLS,
): void {
  contents.on('will-navigate', (event, url) => {
    if (!isOwnPage(url)) event.preventDefault();
  });
  contents.on('will-redirect', (event, url) => {
    if (!isOwnPage(url)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    if (isDocumentationLink(url, allowed)) openExternal(url);
    return { action: 'deny' };
  });
}

/** Requests (camera, notifications, …) are refused and checks answer "not granted": the app needs none. */
export function denyAllPermissions(session: Pick<Session, 'setPermissionRequestHandler' | 'setPermissionCheckHandler'>): void {
  session.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
}
