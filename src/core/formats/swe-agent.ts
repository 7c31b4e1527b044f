/**
 * SWE-agent trajectories (importer: core/import/swe-agent.ts).
 *
 * Live tail of a trajectory (`{trajectory[], history[], info}`; the walk: src/main/store/tail-document.ts). SWE-agent writes the `.traj` again after
 * each step: a step at the end of `trajectory` (not read by the import, checked to only grow) and
 * its messages at the end of `history`, which convert with chatMessages at their place in the
 * list, as the import converts them. `info.model_stats` moves at every step and only feeds an
 * import warning (not stored); every other key is the session's (its instance, model, tools).
 * A run whose config elides old observations (`last_n_observations`: each new call changes how
 * earlier ones were sent) takes the whole-file path.
 */
import { chatMessages } from '../import/chat-messages';
import { lastNObservations } from '../import/swe-agent-config';
import { historyEntry, importer, trajectoryAgent } from '../import/swe-agent';
import { isRecord } from '../import/util';
import { eachAlone } from './document';
import type { DocumentShape, FormatDescriptor } from './types';

declare module '../model' {
  interface FormatIds {
    'swe-agent': true;
  }
}

const trajectoryDocument: DocumentShape = {
  arrays: ['trajectory', 'history'],
  conversation: 'history',
  skeleton: (doc) => {
    if (!isRecord(doc) || !isRecord(doc['info']) || lastNObservations(trajectoryAgent(doc))) return undefined;
    const { model_stats: _volatile, ...info } = doc['info'];
    return { ...doc, info };
  },
  convert: eachAlone(
    (element, index, path) =>
      chatMessages([historyEntry(element)], `${path}#`, undefined, undefined, { index, systemOpen: false }).messages,
  ),
  reopen: true,
  // The model is the run config's, in the skeleton.
  keepsSession: () => true,
};

export const format: FormatDescriptor = { ...importer, agent: 'SWE-agent', tail: { document: { shapes: [trajectoryDocument] } } };
