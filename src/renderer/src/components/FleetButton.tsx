/** Opens the Fleet view: many sessions replayed under several policies (docs/fleet.md). */
import { useAppStore } from '../context';

export function FleetButton() {
  const open = useAppStore((s) => s.openFleet);
  return (
    <button
      data-testid="open-fleet"
      aria-haspopup="dialog"
      title="Replay many sessions under several policies and compare them"
      onClick={() => void open()}
    >
      Fleet
    </button>
  );
}
