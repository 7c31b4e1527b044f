/**
 * The contract over Electron IPC. One channel per method (`ctxscope:<method>`), derived from the
 * contract's method list so main and preload cannot drift (the counter-example in docs/architecture.md).
 * Every call checks its sender (Electron Fiddle's rule: drop messages whose sender is not one of
 * the app's own windows at the app's own URL) before the payload is validated by `dispatch`.
 */
import type { IpcMain, IpcMainInvokeEvent, WebContents } from 'electron';
import {
  IPC_EVENT_CHANNEL,
  IPC_PREFIX,
  METHOD_NAMES,
  type Envelope,
  type EventName,
  type EventPayload,
  type Handlers,
} from '../../shared/api';
import { dispatch, type Logger } from './dispatch';

export interface IpcHostOptions {
  readonly ipcMain: IpcMain;
  readonly handlers: Handlers;
  /** True when the call comes from one of our windows showing our own page. */
  readonly isTrustedSender: (sender: WebContents, frameUrl: string | undefined) => boolean;
  readonly log?: Logger;
}

export function registerIpcHandlers(options: IpcHostOptions): () => void {
  for (const name of METHOD_NAMES) {
    options.ipcMain.handle(IPC_PREFIX + name, async (event: IpcMainInvokeEvent, payload: unknown): Promise<Envelope<unknown>> => {
      if (!options.isTrustedSender(event.sender, event.senderFrame?.url)) {
        options.log?.(`ipc: refused ${name} from untrusted sender ${event.senderFrame?.url ?? '?'}`);
        return { ok: false, error: { code: 'bad_input', message: 'untrusted sender' } };
      }
      return dispatch(options.handlers, name, payload, options.log);
    });
  }
  return () => {
    for (const name of METHOD_NAMES) options.ipcMain.removeHandler(IPC_PREFIX + name);
  };
}

/** Sends a contract event to a window's renderer. */
export function sendEvent<E extends EventName>(target: WebContents, event: E, payload: EventPayload<E>): void {
  if (!target.isDestroyed()) target.send(IPC_EVENT_CHANNEL, event, payload);
}
