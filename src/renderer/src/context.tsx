/** Hands the app store to components without prop drilling. */
import { createContext, useContext, type ReactNode } from 'react';
import { useStore } from 'zustand';
import type { AppState, AppStore } from './store';

const StoreContext = createContext<AppStore | null>(null);

export function StoreProvider({ store, children }: { store: AppStore; children: ReactNode }) {
  return <StoreContext.Provider value={store}>{children}</StoreContext.Provider>;
}

export function useAppStoreApi(): AppStore {
  const store = useContext(StoreContext);
  if (!store) throw new Error('useAppStore outside StoreProvider');
  return store;
}

export function useAppStore<T>(selector: (s: AppState) => T): T {
  return useStore(useAppStoreApi(), selector);
}
