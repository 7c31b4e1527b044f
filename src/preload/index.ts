/**
 * The preload exposes exactly the contract: one function per method (generated from the
 * contract's method list) and `on(event, listener)` for the contract's events. It never exposes
 * ipcRenderer itself, and it forwards only event names the contract knows. Beside the contract,
 * one local helper: `pathForFile` (the path of a dropped File, for importFiles).
 */
import { contextBridge, ipcRenderer, webUtils, type IpcRendererEvent } from 'electron';
import { EVENT_NAMES, IPC_EVENT_CHANNEL, IPC_PREFIX, METHOD_NAMES, type EventName } from '../shared/api';

type Listener = (payload: unknown) => void;
const listeners = new Map<EventName, Set<Listener>>();
const knownEvents = new Set<string>(EVENT_NAMES);

ipcRenderer.on(IPC_EVENT_CHANNEL, (_event: IpcRendererEvent, name: unknown, payload: unknown) => {
  if (typeof name !== 'string' || !knownEvents.has(name)) return;
  for (const listener of listeners.get(name as EventName) ?? []) listener(payload);
});

const bridge: Record<string, unknown> = {};
for (const name of METHOD_NAMES) {
  bridge[name] = (input: unknown) => ipcRenderer.invoke(IPC_PREFIX + name, input);
}
bridge.on = (event: unknown, listener: unknown): (() => void) => {
  if (typeof event !== 'string' || !knownEvents.has(event) || typeof listener !== 'function') return () => {};
  const set = listeners.get(event as EventName) ?? new Set<Listener>();
  set.add(listener as Listener);
  listeners.set(event as EventName, set);
  return () => set.delete(listener as Listener);
};

// A file dropped on the window (or chosen in a file input) is read by the host from its path:
// Electron no longer puts the path on File itself, so the page asks here. Only a real File counts.
bridge.pathForFile = (file: unknown): string => (file instanceof File ? webUtils.getPathForFile(file) : '');

contextBridge.exposeInMainWorld('ctxscope', Object.freeze(bridge));
