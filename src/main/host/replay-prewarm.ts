/**
 * The replay worker's idle time, spent on what the next replay that summarizes would otherwise do
 * inside a request: reading every message's summary items (decisions, errors, files, facts) and
 * laying the session's message list out for folds (summarize/extractive.ts `prepareMessageList`),
 * which makes each fold of it a scan of integer tables (a fold lays out what it needs itself).
 * Measured in one process on the bench's 10,000-call session opened under a policy that does not
 * summarize (openhands-recent): letta picked next replayed in 184–218 ms of CPU instead of
 * 394–471, and the first drag after it in 255–269 instead of 316–334. (A session opened under a
 * policy that summarizes everything, as claude-code does at its compactions, has paid most of it
 * inside its first chart already.)
 *
 * Then, once per session and tokenizer, its summary items counted ahead as a rolling summary's
 * middle items are counted (replay/summary-tokens.ts `precountSummaryItems`; only with a BPE
 * tokenizer): the first replay writing rolling summaries spent most of its counting on first BPE
 * counts of fresh items. The bench's 10,000-call session has ~3,000 distinct items: ~100 ms of
 * idle CPU once.
 *
 * Then, once per session, the exchange starts of every turn (turns.ts `prepareExchanges`): a
 * policy that cuts within turns (letta, S3's (docs/policies.md §S3)) otherwise works each turn's out inside its first
 * replay as it reaches it — ~14 ms of letta's first drag at trigger 0.4 on the bench's session.
 *
 * Then, once per worker, a rehearsal: a rolling summary written and counted fold after fold over
 * the session's first messages for about 30 ms, results thrown away, so that the summarizer and
 * its counting are compiled (JIT) before a request needs them. A fresh process's first replay of
 * new folds cost 30–50 ms CPU more than the next; measured in one process (the bench's session,
 * opened under claude-code, 5 runs alternated), letta picked next took 128–172 ms CPU instead of
 * 178–209 and its first drag (trigger 0.4, 716 rolling summaries) 272–306 instead of 290–336.
 *
 * Then, once per policy per worker, a warm-up replay (`warm`): the chart's inputs with the
 * policy's trigger dragged far down (warmUpOverrides), results thrown away — the policy's own code
 * compiled before its first drag — and after it every other built-in policy's (`alsoWarm`, in
 * `warmUpOrder`), each at its own settings moved the same way (a policy warmed so is warmed again
 * as its own when it is picked): the code the policies share (the replay loop, the summarizer,
 * the window's sums) is then compiled for more than one policy's
 * shapes before a person picks one and drags at once. On the bench's fresh `serve` (10,000 calls,
 * a policy picked right after the first chart and its setting moved right after its chart, 2–3
 * runs each) that moved openhands-summary's first move from 225–247 to 122–147 ms in the page, and
 * letta's from 226–264 to 140–254. A warm-up never counts, loads counts or calls a summarizer for
 * itself (ReplayService.rehearse: it is skipped instead), and it stops as soon as a request is
 * waiting (the worker reads the id of the newest request posted from shared memory, since no
 * message reaches a thread busy replaying): the request waits a millisecond or two, and the
 * warm-up is tried again at the next idle time. (A full garbage collection here was tried too, so
 * that V8's incremental marking — 70–85 ms of steps measured inside an openhands-summary replay —
 * would not land in the next replay: it took 55–75 ms at 10,000 calls but 170–460 ms at 30,000,
 * a pause any click right after a chart would wait for, and its gain was within the spread.)
 *
 * Started after a chart is answered (and resumed after any other answer: a step's detail answered
 * right after the first chart had left the worker idle ~300 ms on the bench's fresh `serve`), a
 * slice at a time, each slice on its own turn of the event loop: a request arriving meanwhile is
 * handled before the next slice, and stops the work
 * (`interrupt`) until the worker is idle again (`idle`), when it goes on where it stopped. A
 * replay's folds lay the list out themselves as far as they reach (summarize/extractive.ts
 * `ListLayout`), so an interrupted preparation costs a request nothing, and a first chart that
 * summarized the whole session has left little to do. Once per session: a live-tail append hands
 * the worker a grown list at every append, whose layout starts from a copy of the shared part
 * (replay/carry.ts) when a fold needs it. Nothing here changes any replay's result, only when the
 * work is done.
 */
import type { Message, Session } from '../../core/model';
import { resolveTokenizer } from '../../core/replay/index';
import { shapeOf } from '../../core/replay/setup';
import { precountSummaryItems, summaryTextCounter } from '../../core/replay/summary-tokens';
import { extractiveSummaryText, prepareMessageList, preparedItems } from '../../core/summarize/extractive';
import type { SummaryText } from '../../core/summarize/summary-text';
import { prepareExchanges } from '../../core/turns';
import type { Overrides, ReplayConfig } from '../../core/config';
import { pipelineSummarizes } from '../../core/config-fields';
import type { Policy } from '../../core/policies/index';
import { configOf, type ReplayInputs } from './replays';

/** Milliseconds per slice: a request arriving meanwhile waits no longer than this (and one message's items). */
const SLICE_MS = 2;
/** Idle time before a warm-up replay starts (`whenStillIdle`): longer than the pause between two steps of a person stepping with the keys (a held key repeats every ~33 ms), shorter than a person reads a chart; the warm-ups end once every policy is warmed (a second or so of idle time), so a slower stepper is slowed by a few ms only while they last. */
const WARM_UP_AFTER_MS = 120;
/** The rehearsal's length in all: enough for the hot functions to be optimized. */
const REHEARSAL_MS = 30;
/** Messages per rehearsed fold, and its summary's target: a rolling summary of some thousand items, as letta's are. */
const REHEARSAL_FOLD = 14;
const REHEARSAL_TOKENS = 8_000;

export interface Prewarm {
  /** A request arrived: no slice starts until `idle` is called again. */
  interrupt(): void;
  /**
   * The worker is idle after answering for this session: prepare its list (or go on preparing
   * it), once per session; then rehearse (once per worker), counting with `tokenizer`.
   */
  idle(sessionId: string, list: readonly Message[], tokenizer?: string): void;
  /** `idle` after a chart of `inputs` was answered: its session (from `sessionOf`), counted as that chart was. */
  afterChart(sessionOf: (id: string) => Session, inputs: ReplayInputs): void;
  /**
   * `idle` after any other request was answered (a call's detail, a view): the work goes on for
   * the last chart answered, if any. Without it the work a detail request interrupted waited for
   * the next chart: on the bench's fresh `serve` the worker sat idle ~300 ms between the first
   * chart's detail and the next policy's pick, which then laid out and counted inside its replay.
   */
  resume(sessionOf: (id: string) => Session): void;
  /** Settles when the work started by the last `idle` stopped, done or interrupted (tests). */
  readonly settled: Promise<void>;
}

export interface PrewarmOptions {
  /** Milliseconds per slice (see SLICE_MS). */
  readonly sliceMs?: number;
  /** Runs the next slice on a later turn (setImmediate: after any message waiting). */
  readonly later?: (run: () => void) => void;
  /** The rehearsal's length in all, ms (see REHEARSAL_MS; 0: none). */
  readonly rehearsalMs?: number;
  /** Runs the first warm-up of an idle time once the worker has stayed idle a while (see WARM_UP_AFTER_MS). */
  readonly whenStillIdle?: (run: () => void) => void;
  /**
   * A replay run for its compiled code only, after the work above: once per policy per worker
   * for another policy's chart (`alsoWarm`), and once more after a chart of its own (`own`). It
   * must stop itself after a time of its own and as soon as a request is waiting, and say which stopped it
   * ('request': the warm-up is tried again at the next idle time), or that it could not run
   * ('skipped': it would have had to count, load or send anything).
   */
  readonly warm?: (inputs: ReplayInputs, own: boolean) => Promise<WarmOutcome>;
  /**
   * The other policies warmed up after the chart's own, in this order, each once per worker: the
   * code they share with it (the replay loop, the summarizer, the window's sums) is then compiled
   * for more than one policy's shapes before a person picks one and drags at once.
   */
  readonly alsoWarm?: (inputs: ReplayInputs) => readonly ReplayInputs[];
}

/** How a warm-up ended: ran its time or to its end, stopped for a waiting request, or not run. */
export type WarmOutcome = 'done' | 'request' | 'skipped';

export function createPrewarm(options: PrewarmOptions = {}): Prewarm {
  const sliceMs = options.sliceMs ?? SLICE_MS;
  const later = options.later ?? ((run: () => void) => void setImmediate(run));
  const whenStillIdle = options.whenStillIdle ?? ((run: () => void) => void setTimeout(run, WARM_UP_AFTER_MS));
  /** Policies warmed up (`warm`) in this worker, and the inputs of the last chart answered. */
  const warmed = new Set<string>();
  let lastChart: ReplayInputs | undefined;
  // Bumped by every interrupt and idle: a slice scheduled under an older one does nothing.
  let generation = 0;
  let settled: Promise<void> = Promise.resolve();
  /** Sessions whose list was laid out whole (their ids only: a list held here would outlive the session). */
  const done = new Set<string>();
  /** Sessions whose items were counted ahead, by session id and tokenizer ("id\\0tokenizer"). */
  const counted = new Set<string>();
  // Where the counting ahead stopped: the session and tokenizer, the section and the item.
  const counting = { key: '', f: 0, q: 0 };
  /** Counts the prepared list's items ahead (summary-tokens.ts `precountSummaryItems`) until `until`; true when all are. */
  const precount = (list: readonly Message[], key: string, tokenizer: string, until: number): boolean => {
    const sections = preparedItems(list) ?? [];
    if (counting.key !== key) Object.assign(counting, { key, f: 0, q: 0 });
    const enough = (): boolean => performance.now() >= until;
    while (counting.f < sections.length) {
      const { items, inline } = sections[counting.f]!;
      counting.q = precountSummaryItems(tokenizer, items, inline, counting.q, enough);
      if (counting.q < items.length) return false;
      counting.f++;
      counting.q = 0;
    }
    return true;
  };
  /** Sessions whose turns' exchange starts were all worked out, and where that stopped (session id, next turn). */
  const exchanged = new Set<string>();
  const exchanging = { id: '', t: 0 };
  /** Works the turns' exchange starts out (turns.ts `prepareExchanges`) until `until`; true when all are. */
  const exchanges = (sessionId: string, list: readonly Message[], until: number): boolean => {
    if (exchanging.id !== sessionId) Object.assign(exchanging, { id: sessionId, t: 0 });
    const { starts } = shapeOf(list);
    exchanging.t = prepareExchanges(list, starts, exchanging.t, () => performance.now() >= until);
    return exchanging.t >= starts.length;
  };
  // The rehearsal so far: time spent, the next fold's start and the summary it rolls on from.
  const rehearsal = { left: options.rehearsalMs ?? REHEARSAL_MS, at: 0, previous: null as SummaryText | null };
  /** One slice of the rehearsal, until `until`; false when there is nothing left to rehearse. */
  const rehearse = (list: readonly Message[], tokenizer: string, until: number): boolean => {
    if (rehearsal.left <= 0 || list.length < REHEARSAL_FOLD) return false;
    const t0 = performance.now();
    const count = summaryTextCounter(tokenizer);
    do {
      if (rehearsal.at + REHEARSAL_FOLD > list.length) rehearsal.at = 0;
      rehearsal.previous = extractiveSummaryText({
        messages: list.slice(rehearsal.at, rehearsal.at + REHEARSAL_FOLD),
        previous: rehearsal.previous,
        targetTokens: REHEARSAL_TOKENS,
      });
      count(rehearsal.previous);
      rehearsal.at += REHEARSAL_FOLD;
    } while (performance.now() < until);
    rehearsal.left -= performance.now() - t0;
    // What it wrote is not kept: only the compiled code is.
    if (rehearsal.left <= 0) rehearsal.previous = null;
    return true;
  };
  return {
    interrupt() {
      generation++;
    },
    idle(sessionId, list, tokenizer = 'chars4') {
      const mine = ++generation;
      const key = `${sessionId}\u0000${tokenizer}`;
      const finished = (): boolean => done.has(sessionId) && counted.has(key) && exchanged.has(sessionId) && rehearsal.left <= 0;
      // After the per-session work: the policy's warm-up, once.
      const afterWork = (): void => {
        const inputs = lastChart;
        const warm = options.warm;
        if (!warm || !inputs || inputs.sessionId !== sessionId || mine !== generation) return;
        // The chart's own policy first, then the others; one at a time, each on a turn of its own.
        // A policy warmed as another's is warmed again as its own once picked: the others' are
        // shorter, and the pick is the sign it is about to be dragged.
        const nameOf = (x: ReplayInputs): string => (x === inputs ? `own ${x.policy.id}` : x.policy.id);
        const queue = [inputs, ...(options.alsoWarm?.(inputs) ?? [])].filter((x) => !warmed.has(nameOf(x)));
        const next = (): void => {
          const x = queue.shift();
          if (!x || mine !== generation) return;
          // It settles on its own (stopped by its time or a request, or failed): nothing waits for it.
          warm(x, x === inputs).then(
            (outcome) => {
              // Warmed as its own, it needs no warm-up as another's either.
              if (outcome === 'done') warmed.add(nameOf(x)).add(x.policy.id);
              // A request is waiting: it runs first, and its answer's idle time starts over.
              if (outcome !== 'request') later(next);
            },
            () => warmed.add(nameOf(x)).add(x.policy.id),
          );
        };
        // Not at once: a person stepping with the keys asks for a call's detail every 30–300 ms, and
        // a warm-up replay started between two of them only to be stopped cost each step 5–12 ms
        // (the stop, the abandoned replay's garbage). The slices above are 2 ms each and go on.
        whenStillIdle(next);
      };
      if (finished()) return afterWork();
      settled = new Promise<void>((stopped) => {
        // Done (not interrupted): the warm-up follows.
        const finish = (): void => {
          stopped();
          afterWork();
        };
        const step = (): void => {
          const until = performance.now() + sliceMs;
          if (mine !== generation) return stopped();
          try {
            // Counting ahead goes on in the slice that finished the layout (with a tokenizer that
            // is not BPE it is nothing to do); the rehearsal starts on a turn of its own.
            const ready = done.has(sessionId) && counted.has(key) && exchanged.has(sessionId);
            if (!done.has(sessionId) && prepareMessageList(list, () => performance.now() >= until)) done.add(sessionId);
            if (done.has(sessionId) && !counted.has(key) && precount(list, key, tokenizer, until)) counted.add(key);
            if (counted.has(key) && !exchanged.has(sessionId) && exchanges(sessionId, list, until)) exchanged.add(sessionId);
            if (ready && !rehearse(list, tokenizer, until)) return finish();
          } catch {
            // Ahead-of-time work only: a failure here must never reach the worker (an uncaught
            // error would end it); the replays do the same work when they need it.
            done.add(sessionId);
            counted.add(key);
            exchanged.add(sessionId);
            rehearsal.left = 0;
            return stopped();
          }
          if (finished()) return finish();
          later(step);
        };
        later(step);
      });
    },
    resume(sessionOf) {
      if (lastChart) this.afterChart(sessionOf, lastChart);
    },
    afterChart(sessionOf, inputs) {
      lastChart = inputs;
      // The chart was just answered from this session and config, so both resolve; if either ever
      // does not, there is nothing to prepare (an error thrown here would end the worker).
      try {
        const session = sessionOf(inputs.sessionId);
        this.idle(inputs.sessionId, session.messages, tokenizerOf(session, inputs));
      } catch {
        return;
      }
    },
    get settled() {
      return settled;
    },
  };
}

/**
 * The warm-up's setting (`warm`): the policy's own setting dragged far — a trigger and a message
 * count halved; Claude Code's preset, whose trigger is its own formula, its target doubled (a
 * compaction that leaves more compacts again sooner) — so that the replay compresses often and
 * the code a heavy replay runs (the summarizer, its lanes, the compression path) is what gets
 * compiled. A setting moved only a little compressed a few
 * dozen times: on the bench's fresh `serve` (10,000 calls, a second between first chart, pick and
 * move, 3 runs each) letta's first move to 0.4 stayed at 164–216 ms in the page and
 * openhands-summary's to 60 messages at 198–215; with the warm-ups halved (and the others' 200 ms,
 * replay-worker.ts) 136–144 and 142–177. A ratio trigger's target is lowered too (by 15 %), so
 * that the folds are not those a drag down would ask for: the point is compiled code, not answers
 * computed ahead (a warm-up writes its summaries through a summarizer of its own, but they share
 * the summary caches' objects).
 */
export function warmUpOverrides(config: ReplayConfig): Overrides {
  // Ratios to thousandths: a setting as a person types it, with no float noise (0.7 × 0.85).
  const ratio = (x: number): number => Math.round(x * 1000) / 1000;
  if (config.triggerMessages !== undefined) return { triggerMessages: Math.max(2, Math.round(config.triggerMessages * 0.5)) };
  if (config.autoCompact || config.triggerTokens !== undefined) return { target: Math.min(0.9, ratio(config.target * 2)) };
  return { trigger: ratio(config.trigger * 0.5), target: ratio(config.target * 0.85) };
}

/**
 * The order other policies are warmed up in (`alsoWarm`): those whose replays write summaries
 * first — they compile the most code (the summarizer, its lanes, their counting), and theirs were
 * the slowest first drags measured (letta, openhands-summary) — the list's order otherwise.
 */
export function warmUpOrder<P extends Pick<Policy, 'config'>>(policies: readonly P[]): P[] {
  const writes = (p: P): boolean => {
    const config = configOf(p, {});
    return config.summarizer !== 'none' && pipelineSummarizes(config);
  };
  return [...policies].sort((a, b) => Number(writes(b)) - Number(writes(a)));
}

/** The tokenizer a chart of `inputs` counted with (the rehearsal counts as it will). */
export function tokenizerOf(session: Session, inputs: ReplayInputs): string {
  return resolveTokenizer(session, configOf(inputs.policy, inputs.overrides));
}
