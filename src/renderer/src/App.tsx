/** The window: session bar on top, the message list and the selected message side by side. */
import { useEffect, useMemo } from 'react';
import { api } from './api';
import { ComparePanel } from './components/ComparePanel';
import { EventList } from './components/EventList';
import { MessageDetail } from './components/MessageDetail';
import { MessageList } from './components/MessageList';
import { PolicyBar } from './components/PolicyBar';
import { SessionBar } from './components/SessionBar';
import { WindowChart } from './components/WindowChart';
import { StoreProvider, useAppStore } from './context';
import { createAppStore } from './store';
import './styles.css';

function ErrorBanner() {
  const error = useAppStore((s) => s.error);
  const clear = useAppStore((s) => s.clearError);
  if (!error) return null;
  return (
    <div className="error-banner" role="alert" data-testid="error-banner">
      {error} <button onClick={clear}>Dismiss</button>
    </div>
  );
}

function Shell() {
  const init = useAppStore((s) => s.init);
  useEffect(() => {
    void init();
  }, [init]);
  return (
    <div className="app">
      <SessionBar />
      <ErrorBanner />
      <PolicyBar />
      <WindowChart />
      <ComparePanel />
      <p className="assumption">
        Replays take the agent's own outputs as unchanged by a different context: every figure rests on that assumption.
      </p>
      <main className="workspace">
        <MessageList />
        <MessageDetail />
        <EventList />
      </main>
    </div>
  );
}

export function App() {
  const store = useMemo(() => createAppStore(api), []);
  return (
    <StoreProvider store={store}>
      <Shell />
    </StoreProvider>
  );
}
