/**
 * Every importer, in the detection order of docs/reference/formats.md: the first whose `detect` matches wins, so
 * the specific formats come first and the generic ones (Chat Completions, plain JSONL) last.
 * Adding a format = one file in this folder + one line here.
 */
import { importer as aider } from './aider';
import { importer as anthropic } from './anthropic';
import { importer as claudeCode } from './claude-code';
import { importer as claudeStreamJson } from './claude-stream-json';
import { importer as codex } from './codex';
import { importer as geminiCli } from './gemini-cli';
import { importer as jsonl } from './jsonl';
import { importer as langchain } from './langchain';
import { importer as miniSweAgent } from './mini-swe-agent';
import { importer as openaiChat } from './openai-chat';
import { importer as openaiResponses } from './openai-responses';
import { importer as openhands } from './openhands';
import { importer as otel } from './otel';
import { importer as sharegpt } from './sharegpt';
import { importer as sweAgent } from './swe-agent';
import type { Importer } from './types';

export const IMPORTERS: readonly Importer[] = [
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
