/**
 * What the window is showing, as the main process can know it: the session and policy of the
 * renderer's latest calls. The menu's Export… exports that (the renderer's own Export button
 * does the same from inside the page). Wraps the handler table; answers are passed through.
 */
import type { Handlers } from '../../shared/api';

export interface CurrentView {
  sessionId: string | null;
  policy: string | null;
  overrides: Record<string, string | number | boolean>;
}

export function followCurrentView(handlers: Handlers): { handlers: Handlers; current: () => Readonly<CurrentView> } {
  const view: CurrentView = { sessionId: null, policy: null, overrides: {} };
  const wrapped: Handlers = {
    ...handlers,
    getSession: async (args) => {
      const r = await handlers.getSession(args);
      if (view.sessionId !== args.id) {
        view.sessionId = args.id;
        view.policy = null;
        view.overrides = {};
      }
      return r;
    },
    runReplay: async (args) => {
      const r = await handlers.runReplay(args);
      view.sessionId = args.sessionId;
      view.policy = args.policy;
      view.overrides = { ...args.overrides };
      return r;
    },
  };
  return { handlers: wrapped, current: () => view };
}
