/**
 * Every transcript format, in the detection order of docs/reference/formats.md: the first whose
 * `detect` matches wins, so the specific formats come first and the generic ones (Chat
 * Completions, plain JSONL) last. Adding a format = one module in this folder (its descriptor,
 * types.ts) + one line here (docs/architecture.md "Add a format"). What the rest of the program
 * knows of formats is derived from this list: `FormatId` (each module declares its id), the
 * importers (core/import/registry.ts), the agent a session's library row names, the policy it
 * opens on, the agent-log folders the local-logs view lists, and the live tail's fast paths.
 */
import type { FormatId } from '../model';
import { format as aider } from './aider';
import { format as anthropic } from './anthropic';
import { format as claudeCode } from './claude-code';
import { format as claudeStreamJson } from './claude-stream-json';
import { format as codex } from './codex';
import { format as geminiCli } from './gemini-cli';
import { format as jsonl } from './jsonl';
import { format as langchain } from './langchain';
import { format as miniSweAgent } from './mini-swe-agent';
import { format as openaiChat } from './openai-chat';
import { format as openaiResponses } from './openai-responses';
import { format as openhands } from './openhands';
import { format as otel } from './otel';
import { format as sharegpt } from './sharegpt';
import { format as sweAgent } from './swe-agent';
import type { FormatDescriptor } from './types';

export type { FormatDescriptor } from './types';

const formats: FormatDescriptor[] = [
  codex,
  claudeCode,
  claudeStreamJson,
  geminiCli,
  openhands,
  sweAgent,
  miniSweAgent,
  otel,
  sharegpt,
  langchain,
  openaiResponses,
  anthropic,
  openaiChat,
  aider,
  jsonl,
];

const BUILT_IN: ReadonlySet<string> = new Set(formats.map((f) => f.id));

/** The formats, in detection order (registerFormat adds to it in place). */
export const FORMATS: readonly FormatDescriptor[] = formats;

/**
 * Adds a format at run time (a plugin, a test's toy format): before the format `before` in the
 * detection order (default: before the generic ones, `openai-chat`, `aider` and `jsonl`, so they
 * do not claim its files first). Its id must be new.
 */
export function registerFormat(format: FormatDescriptor, before: FormatId = 'openai-chat'): void {
  if (formats.some((f) => f.id === format.id)) throw new Error(`a format with id "${format.id}" is registered already`);
  const at = formats.findIndex((f) => f.id === before);
  formats.splice(at < 0 ? formats.length : at, 0, format);
}

/** Removes a format registered with registerFormat (a test cleaning up); the built-in ones stay. */
export function unregisterFormat(id: FormatId): void {
  const at = formats.findIndex((f) => f.id === id);
  if (at >= 0 && !BUILT_IN.has(id)) formats.splice(at, 1);
}

export const formatOf = (id: string): FormatDescriptor | undefined => formats.find((f) => f.id === id);

/** The agent that writes a format, as the library names it (the id itself for a format not known). */
export const agentOf = (id: string): string => formatOf(id)?.agent ?? id;

/** The policy a session of this format opens on: the one of the agent that wrote it (`s0` when it names none). */
export const defaultPolicyOf = (id: string): string => formatOf(id)?.defaultPolicy ?? 's0';

/** The formats whose agents keep logs in a folder of their own, in registry order. */
export const localLogFormats = (): readonly (FormatDescriptor & Required<Pick<FormatDescriptor, 'localLogs'>>)[] =>
  formats.filter((f): f is FormatDescriptor & Required<Pick<FormatDescriptor, 'localLogs'>> => f.localLogs !== undefined);
