/** Follows a tool call to its result (or back): loads the messages around it, then selects the partner. */
import { useCallback } from 'react';
import { useAppStoreApi } from '../context';
import { LINK_REACH, toolPartner } from '../model/tool-links';

export function useToolLink(): (index: number, id: string, side: 'call' | 'result') => Promise<boolean> {
  const store = useAppStoreApi();
  return useCallback(
    async (index, id, side) => {
      const s = store.getState();
      await s.ensureMessages(side === 'call' ? index : index - LINK_REACH, side === 'call' ? index + LINK_REACH : index);
      const partner = toolPartner(store.getState().messages, index, id, side);
      if (partner === null) return false;
      store.getState().selectMessage(partner);
      return true;
    },
    [store],
  );
}
