/**
 * Every importer, in FORMATS.md's detection order: the first whose `detect` matches wins, so
 * the specific formats come first and the generic ones (Chat Completions, plain JSONL) last.
 * Adding a format = one file in this folder + one line here.
 */
import type { Importer } from './types';
import { importer as claudeCode } from './claude-code';
import { importer as anthropic } from './anthropic';
import { importer as openaiChat } from './openai-chat';
import { importer as jsonl } from './jsonl';

export const IMPORTERS: readonly Importer[] = [claudeCode, anthropic, openaiChat, jsonl];
