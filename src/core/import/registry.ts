/**
 * Every importer, in the detection order of docs/reference/formats.md: the formats of
 * core/formats/index.ts (a format's descriptor is its importer), the same list.
 */
import { FORMATS } from '../formats/index';
import type { Importer } from './types';

export const IMPORTERS: readonly Importer[] = FORMATS;
