/**
 * A chart of a session still being imported carries `partial` (src/shared/api.ts ImportPartial):
 * added to the answer as the replay wrote it, without parsing it again (a chart view is written
 * ahead as JSON text on the replay worker).
 */
import { isJsonText, type ChartView, type ImportPartial, type JsonText } from '../../shared/api';
import type { ChartViewWire } from '../../shared/marker-columns';

export function withPartial(
  view: ChartViewWire | JsonText<ChartViewWire>,
  partial: ImportPartial,
): ChartViewWire | JsonText<ChartViewWire> {
  if (!isJsonText(view)) return { ...view, partial } satisfies Pick<ChartView, 'partial'>;
  const text = view.jsonText.trimEnd();
  // The answer is one JSON object: its closing brace gives way to one more member.
  if (!text.endsWith('}')) return view;
  return { ...view, jsonText: `${text.slice(0, -1)},"partial":${JSON.stringify(partial)}}` };
}
