/**
 * The debugger's keys, on the window so they work with focus anywhere outside a text field:
 * ← → one call, Shift+← → ten, Home / End, N / P next / previous compression, Space play / pause.
 */
import type { AppStore } from './store';

/** A field where the keys belong to the user's typing (or the control's own arrows). */
function isField(target: EventTarget | null): boolean {
  const el = target as Partial<HTMLElement> | null;
  if (!el || typeof el.tagName !== 'string') return false;
  if (el.isContentEditable) return true;
  const tag = el.tagName;
  return tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT';
}

export function handleDebuggerKey(
  store: AppStore,
  e: Pick<KeyboardEvent, 'key' | 'shiftKey' | 'ctrlKey' | 'metaKey' | 'altKey' | 'target'>,
): boolean {
  if (e.ctrlKey || e.metaKey || e.altKey || isField(e.target)) return false;
  const s = store.getState();
  // A dialog is open (use-modal.ts counts them): its controls own the keys, and the call behind it
  // (the one the export dialog exports, say) stays put. The export flag also covers the instant
  // between the menu asking for the dialog and the dialog mounting.
  if (s.openDialogs > 0 || s.exportOpen) return false;
  switch (e.key) {
    case 'ArrowRight':
      s.stepBy(e.shiftKey ? 10 : 1);
      return true;
    case 'ArrowLeft':
      s.stepBy(e.shiftKey ? -10 : -1);
      return true;
    case 'Home':
      s.stepToEnd('first');
      return true;
    case 'End':
      s.stepToEnd('last');
      return true;
    case 'n':
    case 'N':
      s.jumpCompression(1);
      return true;
    case 'p':
    case 'P':
      s.jumpCompression(-1);
      return true;
    case ' ':
      s.togglePlay();
      return true;
    default:
      return false;
  }
}

/** Installs the keys on `win`; returns the uninstaller. */
export function installDebuggerKeys(store: AppStore, win: Window): () => void {
  const onKey = (e: KeyboardEvent): void => {
    if (handleDebuggerKey(store, e)) e.preventDefault();
  };
  win.addEventListener('keydown', onKey);
  return () => win.removeEventListener('keydown', onKey);
}
