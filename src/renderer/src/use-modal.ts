/**
 * The one behaviour every modal dialog shares (library, agent logs, export, import error):
 * - focus moves into the dialog when it opens (its `[autofocus]`/`data-autofocus` element, else the
 *   first focusable one, else the dialog itself) and back to the element that had it on close;
 * - Tab and Shift+Tab cycle inside the dialog, and focus that escapes (a click on the page behind
 *   the backdrop) is brought back;
 * - Escape closes it;
 * - while it is open the store counts it (slices/dialogs.ts), so the debugger's keys leave the
 *   window behind alone.
 * Dialogs can stack: only the topmost one handles Tab, Escape and stray focus.
 */
import { useEffect, useRef, type RefObject } from 'react';
import { useAppStoreApi } from './context';

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/** Open dialogs, oldest first (the last one owns the keyboard). */
const stack: HTMLElement[] = [];

/** The elements Tab may reach inside `root`, in document order (hidden ones skipped). */
export function focusablesIn(root: HTMLElement): HTMLElement[] {
  return [...root.querySelectorAll<HTMLElement>(FOCUSABLE)].filter(
    (el) => !el.closest('[hidden], fieldset:disabled') && el.getClientRects().length > 0,
  );
}

/**
 * Where Tab (or Shift+Tab) from `active` goes inside a dialog whose focusable elements are
 * `items`; null when the browser's own move stays inside (nothing to do).
 */
export function trapTarget<T>(items: readonly T[], active: T | null, back: boolean): T | null {
  if (items.length === 0) return null;
  const at = active === null ? -1 : items.indexOf(active);
  if (at === -1) return back ? items[items.length - 1]! : items[0]!;
  if (back && at === 0) return items[items.length - 1]!;
  if (!back && at === items.length - 1) return items[0]!;
  return null;
}

export function useModal(open: boolean, ref: RefObject<HTMLElement | null>, onClose: () => void): void {
  const store = useAppStoreApi();
  // The latest onClose, without re-running the effect (which would move the focus again).
  const close = useRef(onClose);
  close.current = onClose;
  useEffect(() => {
    const el = ref.current;
    if (!open || !el) return;
    const doc = el.ownerDocument;
    const opener = doc.activeElement instanceof HTMLElement && doc.activeElement !== doc.body ? doc.activeElement : null;
    stack.push(el);
    store.getState().dialogOpened();
    if (!el.hasAttribute('tabindex')) el.tabIndex = -1;
    if (!el.contains(doc.activeElement))
      (el.querySelector<HTMLElement>('[data-autofocus], [autofocus]') ?? focusablesIn(el)[0] ?? el).focus();

    const onKey = (e: KeyboardEvent): void => {
      if (stack[stack.length - 1] !== el) return;
      if (e.key === 'Escape') {
        e.preventDefault();
        e.stopPropagation();
        close.current();
        return;
      }
      if (e.key !== 'Tab') return;
      const items = focusablesIn(el);
      const active = doc.activeElement instanceof HTMLElement && el.contains(doc.activeElement) ? doc.activeElement : null;
      const target = items.length === 0 ? el : trapTarget(items, active, e.shiftKey);
      if (!target) return;
      e.preventDefault();
      target.focus();
    };
    const onFocusIn = (e: FocusEvent): void => {
      if (stack[stack.length - 1] !== el || !(e.target instanceof Node) || el.contains(e.target)) return;
      (focusablesIn(el)[0] ?? el).focus();
    };
    // Capture: the dialog sees Escape and Tab before anything on the page behind it.
    doc.addEventListener('keydown', onKey, true);
    doc.addEventListener('focusin', onFocusIn);
    return () => {
      doc.removeEventListener('keydown', onKey, true);
      doc.removeEventListener('focusin', onFocusIn);
      const i = stack.lastIndexOf(el);
      if (i >= 0) stack.splice(i, 1);
      store.getState().dialogClosed();
      // Back to where the user was, unless that is outside a dialog still open (which keeps the focus).
      const top = stack[stack.length - 1];
      if (opener && opener.isConnected && (!top || top.contains(opener))) opener.focus();
    };
  }, [open, ref, store]);
}
