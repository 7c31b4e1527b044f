/**
 * What a SWE-agent run's config (`replay_config`, docs/reference/formats.md, SWE-agent) changes in the prompt beyond
 * the logged `history` (docs/reference/formats.md "What each importer rebuilds"):
 * - history processors: `last_n_observations` shows only the last n observations in full and
 *   replaces older ones by "Old environment output: (N lines omitted)" at every query;
 * - tools: with `parse_function: function_calling` the tool bundles' commands are sent as the
 *   request's `tools`. The bundles' own definitions are not in the trajectory; the table below
 *   gives each known bundle's commands and arguments in our words, close in size to SWE-agent's,
 *   so the tool region is not zero. (With the other parse functions the commands are documented
 *   inside the system prompt, which the history already holds.)
 */
import type { ToolDef } from '../model';
import { arr, isRecord, num, rec, str, type Json } from './util';

export interface LastNObservations {
  readonly n: number;
  readonly polling: number;
  readonly removeTags: ReadonlySet<string>;
  readonly keepTags: ReadonlySet<string>;
}

/** The run's history processors (`history_processors`, or the older singular key). */
function processorsOf(agent: Json): unknown[] {
  return [
    ...arr(agent['history_processors']),
    ...(Array.isArray(agent['history_processor'])
      ? agent['history_processor']
      : isRecord(agent['history_processor'])
        ? [agent['history_processor']]
        : []),
  ];
}

/** Processors that change the prompt and that the importer does not apply (their type names), for a warning. */
export function unappliedProcessors(agent: Json): string[] {
  return processorsOf(agent)
    .map((p) => str(rec(p)['type']) ?? '?')
    .filter((t) => t !== 'last_n_observations' && t !== 'default' && t !== 'cache_control');
}

/** The run's `last_n_observations` processor, when it has one. */
export function lastNObservations(agent: Json): LastNObservations | undefined {
  for (const p of processorsOf(agent)) {
    const r = rec(p);
    const n = num(r['n']);
    if (r['type'] !== 'last_n_observations' || n === undefined || n <= 0) continue;
    const tags = (v: unknown, fallback: string): Set<string> =>
      new Set(Array.isArray(v) ? v.filter((t): t is string => typeof t === 'string') : [fallback]);
    return {
      n,
      polling: Math.max(1, num(r['polling']) ?? 1),
      removeTags: tags(r['always_remove_output_for_tags'], 'remove_output'),
      keepTags: tags(r['always_keep_output_for_tags'], 'keep_output'),
    };
  }
  return undefined;
}

/** Lines as Python's `str.splitlines` counts them (no trailing empty line; the rare ASCII separators 0x1c-0x1e aside). */
function lineCount(text: string): number {
  if (text === '') return 0;
  const lines = text.split(/\r\n|[\n\r\v\f\x85\u2028\u2029]/);
  return lines.at(-1) === '' ? lines.length - 1 : lines.length;
}

function contentStats(content: unknown): { lines: number; images: number } {
  if (typeof content === 'string') return { lines: lineCount(content), images: 0 };
  let lines = 0;
  let images = 0;
  for (const item of arr(content)) {
    const r = rec(item);
    if (r['type'] === 'text') lines += lineCount(str(r['text']) ?? '');
    if (r['type'] === 'image_url') images++;
  }
  return { lines, images };
}

/** SWE-agent's placeholder for an elided observation (its line and image counts). */
function elidedText(content: unknown): string {
  const { lines, images } = contentStats(content);
  return `Old environment output: (${lines} lines omitted)${images > 0 ? ` (${images} images omitted)` : ''}`;
}

/**
 * When `last_n_observations` elides each observation, call by call. The query made for the
 * assistant entry at history index `a` holds entries [0, a) as the processor leaves them:
 * observations (not demonstrations) older than the last n — counted in steps of `polling` — are
 * replaced by a placeholder, the first one (the task) never; an observation tagged to be kept
 * stays, one tagged to be removed is elided at every query. An observation once elided stays
 * elided (the count only grows), so one entry per observation says it all: the history index of
 * the first call that received the placeholder, and the placeholder.
 */
export function elisionSchedule(history: readonly Json[], p: LastNObservations): Map<number, { fromEntry: number; text: string }> {
  const out = new Map<number, { fromEntry: number; text: string }>();
  const tagged = (entry: Json, set: ReadonlySet<string>): boolean => arr(entry['tags']).some((t) => typeof t === 'string' && set.has(t));
  const mark = (i: number, a: number): void => {
    const entry = history[i]!;
    if (out.has(i) || (tagged(entry, p.keepTags) && !tagged(entry, p.removeTags))) return;
    out.set(i, { fromEntry: a, text: elidedText(entry['content']) });
  };
  const observations: number[] = [];
  const removed: number[] = [];
  let next = 1;
  for (let a = 0; a < history.length; a++) {
    const entry = history[a]!;
    if (entry['role'] === 'assistant') {
      const lastRemoved = Math.max(0, Math.floor(observations.length / p.polling) * p.polling - p.n);
      for (; next < lastRemoved; next++) mark(observations[next]!, a);
      for (const i of removed.splice(0)) mark(i, a);
    }
    if (entry['message_type'] !== 'observation') continue;
    if (entry['is_demo'] !== true) observations.push(a);
    if (tagged(entry, p.removeTags)) removed.push(a);
  }
  return out;
}

const S = (description: string) => ({ type: 'string', description });
const I = (description: string) => ({ type: 'integer', description });
const tool = (name: string, description: string, properties: Record<string, unknown>, required: string[]): ToolDef => ({
  name,
  description,
  parameters: { type: 'object', properties, required },
});

const BASH = tool(
  'bash',
  'Runs the given command directly in bash. Interactive programs and commands that never end are not supported; run them in the background or with a timeout.',
  { command: S('The bash command to run.') },
  ['command'],
);

/** Known bundles (`tools/<name>`): their commands, described in our words. */
const BUNDLES: Readonly<Record<string, readonly ToolDef[]>> = {
  defaults: [
    tool(
      'goto',
      'Moves the window to show the given line number of the open file.',
      { line_number: I('The line number to move the window to.') },
      ['line_number'],
    ),
    tool(
      'open',
      'Opens the file at the given path in the editor. With a line number, the window is moved to include that line.',
      {
        path: S('The path to the file to open.'),
        line_number: I('The line number to move the window to (if not given, the window starts at the top of the file).'),
      },
      ['path'],
    ),
    tool('create', 'Creates a new file with the given name and opens it.', { filename: S('The name of the file to create.') }, [
      'filename',
    ]),
    tool('scroll_up', 'Moves the window up by the number of lines it shows.', {}, []),
    tool('scroll_down', 'Moves the window down by the number of lines it shows.', {}, []),
  ],
  search: [
    tool(
      'find_file',
      'Finds all files with the given name or pattern in dir. If dir is not given, searches the current directory.',
      {
        file_name: S('The name of the file or pattern to search for; shell-style wildcards are supported.'),
        dir: S('The directory to search in (the current directory if not given).'),
      },
      ['file_name'],
    ),
    tool(
      'search_dir',
      'Searches for the term in all files in dir. If dir is not given, searches the current directory.',
      { search_term: S('The term to search for.'), dir: S('The directory to search in (the current directory if not given).') },
      ['search_term'],
    ),
    tool(
      'search_file',
      'Searches for the term in file. If file is not given, searches the current open file.',
      { search_term: S('The term to search for.'), file: S('The file to search in (the current open file if not given).') },
      ['search_term'],
    ),
  ],
  edit_replace: [
    tool(
      'edit',
      'Replaces the first occurrence of search with replace in the currently displayed lines. With replace-all, every occurrence in the file is replaced. Check the lines you want to change first; indentation must match exactly.',
      {
        search: S('The text to search for; must match exactly, whitespace included.'),
        replace: S('The text to put in its place.'),
        'replace-all': { type: 'boolean', description: 'Replace every occurrence in the whole file, not only in the window.' },
      },
      ['search', 'replace'],
    ),
    tool(
      'insert',
      'Inserts the text at the end of the open file, or after the given line number.',
      { text: S('The text to insert.'), line: I('The line after which to insert the text (the end of the file if not given).') },
      ['text'],
    ),
  ],
  edit_anthropic: [
    tool(
      'str_replace_editor',
      'A tool to view, create and edit files. `view` shows a file with line numbers (or a directory two levels deep); `create` writes a new file; `str_replace` replaces one exact, unique occurrence of old_str with new_str; `insert` adds new_str after insert_line; `undo_edit` reverts the last edit to the file. Long outputs are clipped.',
      {
        command: { type: 'string', enum: ['view', 'create', 'str_replace', 'insert', 'undo_edit'], description: 'The command to run.' },
        path: S('Absolute path to the file or directory.'),
        file_text: S('Content of the new file (`create`).'),
        old_str: S('The exact text to replace (`str_replace`).'),
        new_str: S('The new text (`str_replace`, `insert`).'),
        insert_line: I('Line after which to insert (`insert`).'),
        view_range: {
          type: 'array',
          items: { type: 'integer' },
          description: 'Line range to show (`view`), e.g. [11, 12]; [start, -1] shows to the end.',
        },
      },
      ['command', 'path'],
    ),
  ],
  submit: [tool('submit', 'Submits the current changes to the repository as the solution and ends the session.', {}, [])],
  review_on_submit_m: [
    tool(
      'submit',
      'Submits the current changes to the repository as the solution; asks for a review first when one is configured.',
      {},
      [],
    ),
  ],
  forfeit: [tool('exit_forfeit', 'Gives up on the current task and ends the session.', {}, [])],
};

/** The tools a function-calling run sent, from its config's bundles (and the bash tool), when the config says. */
export function bundleTools(agent: Json): { tools: ToolDef[]; unknown: string[] } | undefined {
  const tools = rec(agent['tools']);
  if (rec(tools['parse_function'])['type'] !== 'function_calling') return undefined;
  const out: ToolDef[] = [];
  const unknown: string[] = [];
  for (const b of arr(tools['bundles'])) {
    const path = str(rec(b)['path']) ?? '';
    const hidden = new Set(arr(rec(b)['hidden_tools']).filter((t): t is string => typeof t === 'string'));
    const known = BUNDLES[path.split('/').filter(Boolean).at(-1) ?? ''];
    if (!known) {
      unknown.push(path);
      continue;
    }
    for (const t of known) if (!hidden.has(t.name) && !out.some((o) => o.name === t.name)) out.push(t);
  }
  if (tools['enable_bash_tool'] !== false) out.unshift(BASH);
  return { tools: out, unknown };
}
