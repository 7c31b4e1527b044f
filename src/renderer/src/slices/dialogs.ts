/**
 * How many modal dialogs are open (library, agent logs, export, import error, …). While one is,
 * the debugger's window keys (keys.ts) leave the session behind it alone: the dialog's controls
 * own the keyboard. Counted, not a flag, because dialogs can stack (an import error over the
 * agent-logs panel); each dialog registers itself through the one hook `useModal`.
 */

export interface DialogsSlice {
  openDialogs: number;
  dialogOpened(): void;
  dialogClosed(): void;
}

type Set = (partial: Partial<DialogsSlice>) => void;
type Get = () => DialogsSlice;

export function createDialogsSlice(set: Set, get: Get): DialogsSlice {
  return {
    openDialogs: 0,
    dialogOpened() {
      set({ openDialogs: get().openDialogs + 1 });
    },
    dialogClosed() {
      set({ openDialogs: Math.max(0, get().openDialogs - 1) });
    },
  };
}
