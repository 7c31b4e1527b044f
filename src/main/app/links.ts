/**
 * Links that may leave the app. The renderer shows transcripts, and a transcript can hold any
 * URL: a click must not hand it to the OS browser. Only the project's own documentation, a fixed
 * list, opens externally; every other window.open or navigation is denied.
 */

/** Where the project is published; its README and docs are the only external links the app opens. */
export const PROJECT_URL = 'https://github.com/context-scope/context-scope';
export const README_URL = `${PROJECT_URL}#readme`;

export const DOCUMENTATION_URLS: readonly string[] = [
  PROJECT_URL,
  README_URL,
  `${PROJECT_URL}/blob/main/README.md`,
  `${PROJECT_URL}/blob/main/docs/policies.md`,
];

/** True for exactly the allow-listed URLs (after URL parsing, so `https://github.com@evil/` is not one). */
export function isDocumentationLink(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol !== 'https:' || parsed.username !== '' || parsed.password !== '') return false;
  return DOCUMENTATION_URLS.includes(parsed.href);
}
