/** aider: what the chat history says was sent — the model, `/clear`, commands, architect mode's editor calls. */
import { describe, expect, it } from 'vitest';
import { importSource, stringSource } from '../../../src/core/import/index';
import { messageText, type Session } from '../../../src/core/model';

const load = async (text: string): Promise<Session> => (await importSource(stringSource('x.aider.chat.history.md', text))).sessions[0]!;
const texts = (s: Session): string[] => s.messages.map(messageText);

describe('aider', () => {
  it('names the model from the header', async () => {
    const s = await load(
      '# aider chat started at 2026-03-01 10:00:00\n\n> Aider v0.82.0\n> Main model: anthropic/claude-sonnet-4-20250514 with diff edit format, infinite output\n> Weak model: anthropic/claude-3-5-haiku-20241022\n\n#### hi\n\nhello\n\n> Tokens: 1.2k sent, 3 received.\n',
    );
    expect(s.model).toBe('anthropic/claude-sonnet-4-20250514');
  });

  it('/clear empties the history (a source compaction); local commands are not sent; /ask sends its text', async () => {
    const s = await load(
      [
        '# aider chat started at 2026-03-01 10:00:00',
        '> Model: gpt-4o with diff edit format',
        '#### Rename foo to bar',
        '',
        'Renamed.',
        '',
        '> Tokens: 2.4k sent, 104 received.',
        '',
        '#### /clear',
        '',
        '#### /add utils.py',
        '',
        '> Added utils.py to the chat',
        '',
        '#### /ask what does bar return?',
        '',
        'It returns None.',
        '',
        '> Tokens: 1.1k sent, 9 received.',
      ].join('\n'),
    );
    expect(texts(s)).toEqual(['Rename foo to bar', 'Renamed.', 'what does bar return?', 'It returns None.']);
    expect(s.sourceCompactions).toEqual([
      { atMessage: 2, trigger: 'manual', droppedIds: [s.messages[0]!.id, s.messages[1]!.id], sourceLine: 9 },
    ]);
  });

  it("architect mode: the editor call sees the architect's answer alone, in a subagent session", async () => {
    const s = await load(
      [
        '# aider chat started at 2026-03-01 10:00:00',
        '> Main model: claude-3-7-sonnet-20250219 with architect edit format',
        '> Editor model: claude-3-5-sonnet-20241022 with editor-diff edit format',
        '#### Make greet() take a name',
        '',
        'Change greet() in app.py to accept a `name` argument and print it.',
        '',
        '> Tokens: 5.1k sent, 40 received.',
        '> Edit the files? (Y)es/(N)o [Yes]: y',
        '',
        'app.py',
        '<<<<<<< SEARCH',
        'def greet():',
        '=======',
        'def greet(name):',
        '>>>>>>> REPLACE',
        '',
        '> Tokens: 900 sent, 30 received.',
        '> Applied edit to app.py',
        '',
        '#### thanks',
        '',
        'You are welcome.',
        '',
        '> Tokens: 5.3k sent, 5 received.',
      ].join('\n'),
    );
    expect(texts(s)).toEqual([
      'Make greet() take a name',
      'Change greet() in app.py to accept a `name` argument and print it.',
      'I made those changes to the files.',
      'thanks',
      'You are welcome.',
    ]);
    expect(s.messages.filter((m) => m.usage).map((m) => m.usage!.input)).toEqual([5_100, 5_300]);
    expect(s.subagents).toHaveLength(1);
    const editor = s.subagents[0]!;
    expect(editor.model).toBe('claude-3-5-sonnet-20241022');
    expect(editor.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(messageText(editor.messages[0]!)).toBe('Change greet() in app.py to accept a `name` argument and print it.');
    expect(editor.messages[1]!.usage).toMatchObject({ input: 900, output: 30 });
  });
});
