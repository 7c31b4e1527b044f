/**
 * Links that may leave the app. The renderer shows transcripts, and a transcript can hold any
 * URL: a click must not hand it to the OS browser. Only a fixed list of documentation URLs opens
 * externally; every other window.open or navigation is denied.
 *
 * The project has no published address yet, so the list is empty and the Help menu opens the
 * README and docs/policies.md shipped with the app (runtimeResource 'readme' / 'policies-doc').
 * When the project is published, list its documentation URLs here.
 */
export const DOCUMENTATION_URLS: readonly string[] = [];

/** True for exactly the allow-listed URLs (after URL parsing, so `https://github.com@evil/` is not one). */
export function isDocumentationLink(url: string, allowed: readonly string[] = DOCUMENTATION_URLS): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol !== 'https:' || parsed.username !== '' || parsed.password !== '') return false;
  return allowed.includes(parsed.href);
}
