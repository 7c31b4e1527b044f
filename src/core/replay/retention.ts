/**
 * Retention: which facts (identifiers, paths, numbers, names, and the user's own needles) a later
 * message refers to while their earlier mentions were no longer in the window — neither in the
 * history nor in the summary. Facts are extracted once per session and cached.
 */
import type { Message } from '../model';
import { messageText } from '../model';
import { extractFacts, type Fact } from '../summarize/facts';

const factCache = new WeakMap<readonly Message[], Fact[][]>();

/** Facts per message (cached per message list). */
export function messageFacts(messages: readonly Message[]): Fact[][] {
  let facts = factCache.get(messages);
  if (!facts) {
    facts = messages.map((m) => extractFacts(messageText(m)));
    factCache.set(messages, facts);
  }
  return facts;
}

export interface Needle {
  readonly key: string;
  test(text: string): boolean;
}

/** A needle is a plain string, or `/pattern/flags` for a regex. Bad regexes are a clear error. */
export function parseNeedle(spec: string): Needle {
  const m = /^\/(.+)\/([gimsuy]*)$/.exec(spec);
  if (m) {
    let re: RegExp;
    try {
      re = new RegExp(m[1]!, m[2]!.replace('g', ''));
    } catch (e) {
      throw new Error(`needle ${spec}: not a valid regular expression (${e instanceof Error ? e.message : String(e)})`);
    }
    return { key: spec, test: (t) => re.test(t) };
  }
  return { key: spec, test: (t) => t.includes(spec) };
}
