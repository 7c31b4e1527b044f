/**
 * The session the probe's integration tests ask about (test/integration/probe/): a TypeError in
 * src/invoices/format.ts met in the first call, then six turns of filler that push it out of a
 * short window, then a last call that names it again.
 */
import type { Message, Session } from '../../src/core/model';
import { assistant, call, msg, result, session, user } from './session';

const filler = (n: number, tag: string): string => `${tag} `.repeat(n);

export function probeSession(): Session {
  const messages: Message[] = [
    user('Please fix formatMoney in src/invoices/format.ts.'),
    assistant([call('c1', 'Bash', '{"command":"npm test"}')]),
    msg('user', [result('c1', 'FAIL test/format.test.ts\nTypeError: formatMoney is not a function', true)]),
  ];
  for (let t = 0; t < 6; t++)
    messages.push(
      user(filler(200, `u${t}`)),
      assistant([call(`r${t}`, 'Read', `{"file_path":"notes/n${t}.md"}`)]),
      msg('user', [result(`r${t}`, filler(200, `n${t}`))]),
    );
  messages.push(user('Back to it.'), assistant('The TypeError from formatMoney in src/invoices/format.ts: fixing it now.'));
  return session(messages);
}
