/**
 * The debugger's window (fits 1440×900 without page scrolling): session and policy bars, the
 * region chart and the replay timeline on top; below, the turn list and the message in full | the
 * context view (or events, compare, estimate accuracy) | guard status and settings.
 */
import { useEffect, useMemo, useState } from 'react';
import { api, files } from './api';
import { CompareView } from './components/CompareView';
import { ConfigPanel } from './components/ConfigPanel';
import { ContextView } from './components/ContextView';
import { EstimateAccuracy } from './components/EstimateAccuracy';
import { EventList } from './components/EventList';
import { ExportDialog } from './components/ExportDialog';
import { FleetView } from './components/FleetView';
import { GuardStatus } from './components/GuardStatus';
import { ImportLayer } from './components/ImportLayer';
import { MessageDetail } from './components/MessageDetail';
import { PolicyBar } from './components/PolicyBar';
import { ChartLegend, RegionChart } from './components/RegionChart';
import { ReplayTimeline } from './components/ReplayTimeline';
import { SessionBar } from './components/SessionBar';
import { PartialNote } from './components/PartialNote';
import { TunerPanel } from './components/TunerPanel';
import { ProbePanel } from './components/ProbePanel';
import { MarksLegend, TurnList } from './components/TurnList';
import { StoreProvider, useAppStore, useAppStoreApi } from './context';
import { installDebuggerKeys } from './keys';
import { createAppStore } from './store';
import { readUrlState, syncUrl } from './url-sync';
import './styles.css';

function ErrorBanner() {
  const error = useAppStore((s) => s.error);
  const clear = useAppStore((s) => s.clearError);
  if (!error) return null;
  return (
    <div className="error-banner" role="alert" data-testid="error-banner">
      <bdi>{error}</bdi> <button onClick={clear}>Dismiss</button>
    </div>
  );
}

const TABS = [
  { id: 'context', label: 'Context' },
  { id: 'events', label: 'Events' },
  { id: 'compare', label: 'Compare' },
  { id: 'accuracy', label: 'Estimate vs reported' },
  { id: 'tuner', label: 'Tuner' },
  { id: 'probe', label: 'Probe' },
] as const;
type Tab = (typeof TABS)[number]['id'];

function CentrePanel() {
  const [tab, setTab] = useState<Tab>('context');
  return (
    <div className="centre">
      <nav className="tabs" role="tablist">
        {TABS.map((t) => (
          <button key={t.id} role="tab" data-testid={`tab-${t.id}`} aria-selected={tab === t.id} onClick={() => setTab(t.id)}>
            {t.label}
          </button>
        ))}
      </nav>
      <div className="tab-body">
        {tab === 'context' ? <ContextView /> : null}
        {tab === 'events' ? <EventList /> : null}
        {tab === 'compare' ? <CompareView /> : null}
        {tab === 'accuracy' ? <EstimateAccuracy /> : null}
        {tab === 'tuner' ? <TunerPanel /> : null}
        {tab === 'probe' ? <ProbePanel /> : null}
      </div>
    </div>
  );
}

function Shell() {
  const store = useAppStoreApi();
  useEffect(() => {
    const from = readUrlState(window);
    const unsync = syncUrl(store, window);
    const unkeys = installDebuggerKeys(store, window);
    void store.getState().init(from);
    return () => {
      unsync();
      unkeys();
    };
  }, [store]);
  return (
    <div className="app">
      <SessionBar />
      <ErrorBanner />
      <PolicyBar />
      <div className="chart-area">
        <PartialNote />
        <RegionChart />
        <ChartLegend />
        <ReplayTimeline />
      </div>
      <main className="workspace">
        <div className="left">
          <div className="turn-pane">
            <MarksLegend />
            <TurnList />
          </div>
          <MessageDetail />
        </div>
        <CentrePanel />
        <aside className="right">
          <GuardStatus />
          <ConfigPanel />
        </aside>
      </main>
      <ExportDialog />
      <ImportLayer />
      <FleetView />
      <p className="assumption">
        Replays take the agent's own outputs as unchanged by a different context: every figure rests on that assumption.
      </p>
    </div>
  );
}

export function App() {
  const store = useMemo(() => createAppStore(api, { files }), []);
  return (
    <StoreProvider store={store}>
      <Shell />
    </StoreProvider>
  );
}
