/**
 * What OpenHands puts in the prompt for an event, beyond the event's own text (docs/reference/formats.md, OpenHands;
 * docs/reference/formats.md "What each importer rebuilds"). OpenHands' ConversationMemory turns events into messages:
 * a command's output carries the metadata prefix and suffix and a few status lines; an error
 * the runtime raised is sent with a trailing note; a recall observation becomes a user message
 * with the workspace context and the triggered microagents; long observations are cut in the
 * middle. With non-native function calling the tool definitions are rendered into the system
 * prompt as text, the first user message is wrapped in an example, and tool results come back
 * as user text. The wording of the tags below follows what OpenHands sends, so the count is
 * right; the in-context example is our own text of about the same length (the log does not
 * hold it).
 */
import type { ToolDef } from '../model';
import { arr, isRecord, num, rec, str, type Json } from './util';

/** OpenHands' default `max_message_chars`: longer observations are cut in the middle. */
export const DEFAULT_MAX_MESSAGE_CHARS = 30_000;

export function truncateMiddle(text: string, max: number): string {
  if (max < 0 || text.length <= max) return text;
  const half = Math.floor(max / 2);
  return `${text.slice(0, half)}\n[... Observation truncated due to length ...]\n${text.slice(text.length - half)}`;
}

/** A command's output as the agent sees it: prefix + output + suffix, then working directory, interpreter and exit code. */
export function commandOutput(content: string, extras: Json): string {
  const meta = rec(extras['metadata']);
  let out = `${str(meta['prefix']) ?? ''}${content}${str(meta['suffix']) ?? ''}`;
  const cwd = str(meta['working_dir']);
  const py = str(meta['py_interpreter_path']);
  const exit = num(meta['exit_code']) ?? num(extras['exit_code']);
  if (cwd) out += `\n[Current working directory: ${cwd}]`;
  if (py) out += `\n[Python interpreter: ${py}]`;
  if (exit !== undefined && exit !== -1) out += `\n[Command finished with exit code ${exit}]`;
  return out;
}

/** The text OpenHands sends for an observation (before it is a tool result or a user message). */
export function observationText(kind: string, content: string, extras: Json, fromTool: boolean, maxChars: number): string {
  switch (kind) {
    case 'run': {
      const out = commandOutput(content, extras);
      return truncateMiddle(fromTool ? out : `\nObserved result of command executed by user:\n${out}`, maxChars);
    }
    case 'run_ipython':
      // Inline images are replaced by a note (they were shown to the user, not sent again).
      return truncateMiddle(
        content
          .split('\n')
          .map((l) =>
            l.includes('![image](data:image/png;base64,') ? '![image](data:image/png;base64, ...) already displayed to user' : l,
          )
          .join('\n'),
        maxChars,
      );
    case 'error':
      return `${truncateMiddle(content, maxChars)}\n[Error occurred in processing last action]`;
    case 'user_rejected':
      return `OBSERVATION:\n${truncateMiddle(content, maxChars)}\n[Last action has been rejected by the user]`;
    case 'read':
      return content; // already cut by the file reader
    default:
      return truncateMiddle(content, maxChars);
  }
}

interface Microagent {
  readonly name: string;
  readonly trigger: string;
  readonly content: string;
}

function microagentsOf(extras: Json): Microagent[] {
  return arr(extras['microagent_knowledge']).flatMap((m) => {
    const r = rec(m);
    const content = str(r['content']);
    return content ? [{ name: str(r['name']) ?? '', trigger: str(r['trigger']) ?? str(r['trigger_word']) ?? '', content }] : [];
  });
}

function microagentText(agents: readonly Microagent[]): string {
  return agents
    .map(
      (a) =>
        `\n<EXTRA_INFO>\nThe following information has been included based on a keyword match for "${a.trigger}".\nIt may or may not be relevant to the user's request.\n\n${a.content}\n</EXTRA_INFO>\n`,
    )
    .join('');
}

function workspaceText(extras: Json): string {
  const parts: string[] = [];
  const repo = str(extras['repo_name']);
  const dir = str(extras['repo_directory']);
  if (repo || dir)
    parts.push(
      `<REPOSITORY_INFO>\nAt the user's request, repository ${repo ?? ''} has been cloned to the current working directory ${dir ?? ''}.\n</REPOSITORY_INFO>`,
    );
  const instructions = str(extras['repo_instructions'])?.trim();
  if (instructions) parts.push(`<REPOSITORY_INSTRUCTIONS>\n${instructions}\n</REPOSITORY_INSTRUCTIONS>`);
  const runtime: string[] = [];
  const hosts = Object.entries(rec(extras['runtime_hosts']));
  if (hosts.length > 0) {
    runtime.push(
      `The user has access to the following hosts for accessing a web application,\neach of which has a corresponding port:\n${hosts.map(([h, p]) => `* ${h} (port ${String(p)})`).join('\n')}\nWhen starting a web server, use the corresponding ports. You should also\nset any options to allow iframes and CORS requests, and allow the server to\nbe accessed from any host (e.g. 0.0.0.0).\nFor example, if you are using vite.config.js, you should set server.host and server.allowedHosts to true`,
    );
  }
  const extra = str(extras['additional_agent_instructions']);
  if (extra) runtime.push(extra);
  const secrets = Object.entries(rec(extras['custom_secrets_descriptions']));
  if (secrets.length > 0)
    runtime.push(
      `<CUSTOM_SECRETS>\nYou are have access to the following environment variables\n${secrets.map(([k, v]) => `* $**${k}**: ${String(v)}`).join('\n')}\n</CUSTOM_SECRETS>`,
    );
  const date = str(extras['date']);
  if (date) runtime.push(`Today's date is ${date} (UTC).`);
  if (runtime.length > 0) parts.push(`<RUNTIME_INFORMATION>\n${runtime.join('\n')}\n</RUNTIME_INFORMATION>`);
  const conversation = str(extras['conversation_instructions']);
  if (conversation) parts.push(`<CONVERSATION_INSTRUCTIONS>\n${conversation}\n</CONVERSATION_INSTRUCTIONS>`);
  return parts.join('\n');
}

/**
 * The user message a recall observation becomes, or undefined when it adds nothing. Knowledge
 * recalls skip microagents an earlier recall already brought in (`seen`, updated here).
 */
export function recallText(extras: Json, seen: Set<string>): string | undefined {
  const agents = microagentsOf(extras);
  const type = str(extras['recall_type']);
  if (type === 'knowledge') {
    const fresh = agents.filter((a) => !seen.has(a.name));
    for (const a of agents) seen.add(a.name);
    return fresh.length > 0 ? microagentText(fresh) : undefined;
  }
  for (const a of agents) seen.add(a.name);
  const text = [workspaceText(extras), agents.length > 0 ? microagentText(agents) : ''].filter((t) => t.trim() !== '');
  return text.length > 0 ? text.join('\n') : undefined;
}

interface Schema {
  readonly properties?: Record<string, { type?: string; description?: string; enum?: unknown[] }>;
  readonly required?: string[];
}

/** The tool definitions as the text OpenHands appends to the system prompt when the model has no native function calling. */
export function toolsAsText(tools: readonly ToolDef[]): string {
  const described = tools
    .map((t, i) => {
      const schema = (isRecord(t.parameters) ? t.parameters : {}) as Schema;
      const props = Object.entries(schema.properties ?? {});
      const required = new Set(schema.required ?? []);
      const params = props.map(([name, p], j) => {
        const enumText = Array.isArray(p.enum) ? `\nAllowed values: [${p.enum.map((v) => `\`${String(v)}\``).join(', ')}]` : '';
        return `  (${j + 1}) ${name} (${p.type ?? 'string'}, ${required.has(name) ? 'required' : 'optional'}): ${p.description ?? 'No description provided'}${enumText}\n`;
      });
      return `---- BEGIN FUNCTION #${i + 1}: ${t.name} ----\nDescription: ${t.description}\nParameters:\n${params.join('')}---- END FUNCTION #${i + 1} ----\n`;
    })
    .join('\n');
  return `\nYou have access to the following functions:\n\n${described}\nIf you choose to call a function ONLY reply in the following format with NO suffix:\n\n<function=example_function_name>\n<parameter=example_parameter_1>value_1</parameter>\n<parameter=example_parameter_2>\nThis is the value for the second parameter\nthat can span\nmultiple lines\n</parameter>\n</function>\n\n<IMPORTANT>\nReminder:\n- Function calls MUST follow the specified format, start with <function= and end with </function>\n- Required parameters MUST be specified\n- Only call one function at a time\n- You may provide optional reasoning for your function call in natural language BEFORE the function call, but NOT after.\n- If there is no function call available, answer the question like normal with your current knowledge and do not tell the user about function calls\n</IMPORTANT>\n`;
}

/**
 * A worked example per tool, in the `<function=…>` format, standing in for OpenHands' in-context
 * example (which the log does not hold): our wording, of about the same length per tool, so
 * the first user message weighs what it weighed.
 */
const EXAMPLE_BY_TOOL: readonly (readonly [string, string])[] = [
  [
    'execute_bash',
    '\nASSISTANT: First, let me see where I am and what is here:\n<function=execute_bash>\n<parameter=command>\npwd && ls -la\n</parameter>\n</function>\n\nUSER: EXECUTION RESULT of [execute_bash]:\n/workspace\ntotal 8\ndrwxr-xr-x 2 openhands openhands 4096 data\nopenhands@runtime:~/workspace$\n',
  ],
  [
    'str_replace_editor',
    '\nASSISTANT:\nThere is no converter yet. Let me write `convert.py`, which reads `data/prices.csv` and prints each row as JSON:\n<function=str_replace_editor>\n<parameter=command>create</parameter>\n<parameter=path>/workspace/convert.py</parameter>\n<parameter=file_text>\nimport csv\nimport json\nimport sys\n\ndef main(path):\n    with open(path, newline="") as handle:\n        for row in csv.DictReader(handle):\n            row["price"] = float(row["price"])\n            print(json.dumps(row))\n\nif __name__ == "__main__":\n    main(sys.argv[1] if len(sys.argv) > 1 else "data/prices.csv")\n</parameter>\n</function>\n\nUSER: EXECUTION RESULT of [str_replace_editor]:\nFile created successfully at: /workspace/convert.py\n',
  ],
  [
    'execute_bash',
    '\nASSISTANT:\nNow let me run it on the sample file and keep the output in a log:\n<function=execute_bash>\n<parameter=command>\npython3 convert.py data/prices.csv > out.log 2>&1; echo "exit $?"\n</parameter>\n</function>\n\nUSER: EXECUTION RESULT of [execute_bash]:\nexit 1\n\nASSISTANT:\nIt failed. Let me read the log to see why:\n<function=execute_bash>\n<parameter=command>\ncat out.log\n</parameter>\n</function>\n\nUSER: EXECUTION RESULT of [execute_bash]:\nTraceback (most recent call last):\n  File "/workspace/convert.py", line 13, in <module>\n    main(sys.argv[1] if len(sys.argv) > 1 else "data/prices.csv")\n  File "/workspace/convert.py", line 8, in main\n    row["price"] = float(row["price"])\nValueError: could not convert string to float: \'n/a\'\n\nASSISTANT:\nOne row has `n/a` as its price. Let me look at the rows of the file that are not numbers:\n<function=execute_bash>\n<parameter=command>\ngrep -n "n/a" data/prices.csv; wc -l data/prices.csv\n</parameter>\n</function>\n\nUSER: EXECUTION RESULT of [execute_bash]:\n7:widget-7,n/a\n12 data/prices.csv\n\nASSISTANT:\nOnly line 7 is missing its price; the other eleven rows are numbers. Missing prices should become null rather than stop the whole conversion. Let me first install the test runner so I can check the change afterwards:\n<function=execute_bash>\n<parameter=command>\npip3 install pytest\n</parameter>\n</function>\n\nUSER: EXECUTION RESULT of [execute_bash]:\nDefaulting to user installation because normal site-packages is not writeable\nCollecting pytest\n  Using cached pytest-8.2.0-py3-none-any.whl (339 kB)\nCollecting iniconfig\n  Using cached iniconfig-2.0.0-py3-none-any.whl (5.9 kB)\nCollecting pluggy<2.0,>=1.5\n  Using cached pluggy-1.5.0-py3-none-any.whl (20 kB)\nRequirement already satisfied: packaging in /home/openhands/.local/lib/python3.10/site-packages (from pytest) (24.0)\nInstalling collected packages: pluggy, iniconfig, pytest\nSuccessfully installed iniconfig-2.0.0 pluggy-1.5.0 pytest-8.2.0\n\nASSISTANT:\nThe runner is installed. Let me start a small server that serves the converted rows so the result can be viewed in a browser:\n<function=execute_bash>\n<parameter=command>\npython3 -m http.server 8000 > server.log 2>&1 &\n</parameter>\n</function>\n\nUSER: EXECUTION RESULT of [execute_bash]:\n[1] 231\n',
  ],
  [
    'browser',
    "\nASSISTANT:\nLet me open the page to check that the listing shows up:\n<function=browser>\n<parameter=code>\ngoto('http://127.0.0.1:8000')\nnoop(1000)  # give the page a moment to load\n</parameter>\n</function>\n\nUSER: EXECUTION RESULT of [browser]:\n[The browser shows a directory listing with convert.py, data/ and out.log]\n",
  ],
  [
    'execute_bash',
    '\nUSER: Stop the server, and make missing prices come out as null.\n\nASSISTANT:\nSure. Let me stop the server first:\n<function=execute_bash>\n<parameter=command>\nkill 231\n</parameter>\n</function>\n\nUSER: EXECUTION RESULT of [execute_bash]:\n[1]+  Terminated              python3 -m http.server 8000 > server.log 2>&1\n',
  ],
  [
    'str_replace_editor',
    '\nASSISTANT:\nNow let me make the conversion keep going when a price is missing:\n<function=str_replace_editor>\n<parameter=command>str_replace</parameter>\n<parameter=path>/workspace/convert.py</parameter>\n<parameter=old_str>            row["price"] = float(row["price"])</parameter>\n<parameter=new_str>            row["price"] = float(row["price"]) if row["price"] not in ("", "n/a") else None</parameter>\n</function>\n\nUSER: EXECUTION RESULT of [str_replace_editor]:\nThe file /workspace/convert.py has been edited. Here\'s the result of running `cat -n` on a snippet of /workspace/convert.py:\n     5\tdef main(path):\n     6\t    with open(path, newline="") as handle:\n     7\t        for row in csv.DictReader(handle):\n     8\t            row["price"] = float(row["price"]) if row["price"] not in ("", "n/a") else None\n     9\t            print(json.dumps(row))\n    10\t\nReview the changes and make sure they are as expected. Edit the file again if necessary.\n\n',
  ],
  [
    'execute_bash',
    '\nASSISTANT:\nLet me run the conversion again:\n<function=execute_bash>\n<parameter=command>\npython3 convert.py data/prices.csv | sed -n 7p\n</parameter>\n</function>\n\nUSER: EXECUTION RESULT of [execute_bash]:\n{"item": "widget-7", "price": null}\n\nASSISTANT:\nRow 7 now comes out with a null price and the other rows are unchanged. The converter is at /workspace/convert.py.\n',
  ],
  [
    'finish',
    '\nASSISTANT:\nThe converter handles missing prices now. Let me know if you need anything else!\n<function=finish>\n<parameter=message>convert.py turns data/prices.csv into JSON lines; rows without a price get a null price.</parameter>\n<parameter=task_completed>true</parameter>\n</function>\n',
  ],
];

/** OpenHands' tool families the example covers (by the names its tools have). */
const EXAMPLE_FAMILY: Readonly<Record<string, string>> = {
  execute_bash: 'execute_bash',
  str_replace_editor: 'str_replace_editor',
  browser: 'browser',
  finish: 'finish',
};

/** The wrapping of the first user message: an example for the tools there are, then the task between markers. */
export function exampleWrapping(tools: readonly ToolDef[]): { before: string; after: string } | undefined {
  const families = new Set(tools.flatMap((t) => (EXAMPLE_FAMILY[t.name] ? [EXAMPLE_FAMILY[t.name]!] : [])));
  if (families.size === 0) return undefined;
  const steps = EXAMPLE_BY_TOOL.filter(([family]) => families.has(family))
    .map(([, text]) => text)
    .join('');
  const before = `Here's a running example of how to perform a task with the provided tools.\n\n--------------------- START OF EXAMPLE ---------------------\n\nUSER: Convert data/prices.csv to JSON lines, and show the result in a web page on port 8000.\n\n${steps}\n--------------------- END OF EXAMPLE ---------------------\n\nDo NOT assume the environment is the same as in the example above.\n\n--------------------- NEW TASK DESCRIPTION ---------------------\n`;
  const after =
    '\n--------------------- END OF NEW TASK DESCRIPTION ---------------------\n\nPLEASE follow the format strictly! PLEASE EMIT ONE AND ONLY ONE FUNCTION CALL PER MESSAGE.\n';
  return { before, after };
}
