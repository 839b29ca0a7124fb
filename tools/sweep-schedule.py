#!/usr/bin/env python3
"""Replays a sweep's jobs on N simulated workers, to predict its wall time at thread counts this
machine cannot run (issue 18: 16 threads, measured on a 2-core VM).

Input: the JSON export of a sweep table with its times (`models sweep --db DB --format json
--times`), best taken at 1 thread, where no job waits for a core. Each source's recording
(`source_seconds`) and each engine's work (`engine_seconds`, of which `report_seconds` comes after
the stream's end) become jobs, scheduled as src/experiments/sweep-run.c schedules them:

  * a source's configurations are dealt round-robin into min(engines, N) shards when its
    recording starts; a shard replays the stream as it is published (every PUBLISH_ITEMS items),
    parks when it has caught up, and is queued again at the next publication;
  * the pool's queue takes replays before recordings, then the order given by --order (`plan`:
    the plan's order, as main does; `largest`: recordings by n, largest first, and replays by the
    events their source has recorded so far, most first, read when a worker frees, as s8-sweep
    does; `largest-queued`: the same keys read when a task is queued, as a sorted queue would;
    `oracle`: by each source's measured work, largest first, which no sweep knows beforehand);
  * after the stream's end a shard runs its engines' reports.

What it leaves out: the writer thread, the cost of parking and waking, the recording process of a
spawned source (its own core: at 1 thread the parent waits on the pipe while it runs), and
contention for memory bandwidth and caches between workers. So it predicts a lower bound of the
pool's own cost: the schedule.

Usage: tools/sweep-schedule.py TIMES.json [--threads 1,2,4,8,16]
       [--order plan|largest|largest-queued|oracle]
       [--timeline]   (prints the measured timeline's busy time per worker first)
"""
import argparse
import heapq
import json
import sys
from collections import OrderedDict

PUBLISH_ITEMS = 512     # as sweep-run.c
EVENTS_PER_ITEM = 4096  # a recorded batch holds up to 4096 events (markers are items too)


def load(path):
    with open(path) as f:
        rows = json.load(f)
    sources = OrderedDict()
    for r in rows:
        if r.get("report_seconds") is None:
            sys.exit("%s: no timeline (a table from before schema 2, or exported without --times)"
                     % path)
        key = (r["algo"], r["n"], r["seed"])
        s = sources.setdefault(key, {"record": r["source_seconds"], "events": r["events"],
                                     "engines": []})
        s["engines"].append((r["spec"], r["engine_seconds"] - r["report_seconds"],
                             r["report_seconds"]))
    # The plan's order is the export's: algo, n, seed, spec (the JSON comes sorted that way).
    return list(sources.items())


class Shard:
    def __init__(self, source, consume, report):
        self.source = source
        self.consume = consume    # seconds to replay the whole stream
        self.report = report      # seconds after the end
        self.done_fraction = 0.0
        self.reported = False


def simulate(sources, n_threads, order, finish=None):
    """Event-driven: each worker runs one task until it finishes or parks. Returns the end; fills
    @finish (when given) with each source's (recording start, recording end, last report's end)."""
    n = len(sources)
    record_s = [s["record"] for _, s in sources]
    # The estimate `largest` orders by: the source's whole work, recording plus engines.
    work = [s["record"] + sum(c + r for _, c, r in s["engines"]) for _, s in sources]
    size = [key[1] for key, _ in sources]
    events_of = [s["events"] for _, s in sources]
    quantum = [min(1.0, PUBLISH_ITEMS * EVENTS_PER_ITEM / max(1, s["events"]))
               for _, s in sources]
    rec_start = [None] * n
    shards = [[] for _ in range(n)]
    parked = [[] for _ in range(n)]
    queue = []           # (class, priority, seq, task): replays (class 0) before recordings
    seq = 0

    def priority(cls, src, t):
        """Smaller first, as the pool's sort function orders its queue."""
        if order == "plan":
            return (src,)
        if order == "oracle":
            return (-work[src], src)
        if cls == 0:
            # A replay: the source with the most events recorded so far first.
            return (-published(src, t)[0] * events_of[src], src)
        return (-size[src], src)

    def push(cls, src, task, t):
        nonlocal seq
        heapq.heappush(queue, (cls, priority(cls, src, t), seq, task))
        seq += 1

    for i in range(n):
        push(1, i, ("record", i), 0.0)

    def published(i, t):
        """The fraction of source i's stream readable at time t, and whether it has ended."""
        if rec_start[i] is None:
            return 0.0, False
        p = (t - rec_start[i]) / record_s[i] if record_s[i] > 0 else 1.0
        if p >= 1.0 - 1e-12:
            return 1.0, True
        return int(p / quantum[i]) * quantum[i], False

    # Timed wake-ups: (time, src) publications of a recording in progress.
    events = []
    free_at = [(0.0, w) for w in range(n_threads)]
    heapq.heapify(free_at)
    end = 0.0
    while queue or events:
        t, w = heapq.heappop(free_at)
        # Publications due by now queue their parked shards.
        while events and events[0][0] <= t + 1e-12:
            _, i = heapq.heappop(events)
            for sh in parked[i]:
                push(0, i, ("replay", sh), t)
            parked[i] = []
        if not queue:
            # Idle until the next publication.
            nt = events[0][0]
            heapq.heappush(free_at, (max(t, nt), w))
            continue
        if order == "largest":
            # Keys that change while queued (events recorded since): read at every pop.
            queue = [(c, priority(c, tk[1] if c == 1 else tk[1].source, t), q, tk)
                     for c, _, q, tk in queue]
            heapq.heapify(queue)
        _, _, _, task = heapq.heappop(queue)
        if task[0] == "record":
            i = task[1]
            rec_start[i] = t
            eng = sources[i][1]["engines"]
            k = min(len(eng), n_threads)
            for j in range(k):
                mine = eng[j::k]
                sh = Shard(i, sum(c for _, c, _ in mine), sum(r for _, _, r in mine))
                shards[i].append(sh)
                parked[i].append(sh)
            steps = int(1.0 / quantum[i])
            for q in range(1, steps + 1):
                heapq.heappush(events, (t + q * quantum[i] * record_s[i], i))
            heapq.heappush(events, (t + record_s[i], i))
            heapq.heappush(free_at, (t + record_s[i], w))
            end = max(end, t + record_s[i])
            continue
        sh = task[1]
        i = sh.source
        frac, ended = published(i, t)
        tt = t + max(0.0, frac - sh.done_fraction) * sh.consume
        sh.done_fraction = max(sh.done_fraction, frac)
        # Whatever was published while it replayed is read in the same task.
        while not ended:
            frac2, ended = published(i, tt)
            if frac2 <= sh.done_fraction + 1e-12:
                break
            tt += (frac2 - sh.done_fraction) * sh.consume
            sh.done_fraction = frac2
        if ended and sh.done_fraction >= 1.0 - 1e-12:
            tt += sh.report
            sh.reported = True
            if finish is not None:
                prev = finish.get(i, (0, 0, 0))[2]
                finish[i] = (rec_start[i], rec_start[i] + record_s[i], max(prev, tt))
        else:
            parked[i].append(sh)
        heapq.heappush(free_at, (tt, w))
        end = max(end, tt)
    return end


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("times")
    ap.add_argument("--threads", default="1,2,4,8,16")
    ap.add_argument("--order", choices=("plan", "largest", "largest-queued", "oracle"), default="plan")
    ap.add_argument("--timeline", action="store_true")
    a = ap.parse_args()
    sources = load(a.times)
    total = sum(s["record"] + sum(c + r for _, c, r in s["engines"]) for _, s in sources)
    big = max(sources, key=lambda kv: kv[1]["record"])
    tail = max(big[1]["engines"], key=lambda e: e[2])
    print("%d sources, %d configurations, %.2f s of jobs in all" %
          (len(sources), sum(len(s["engines"]) for _, s in sources), total))
    print("largest recording: %s n=%s: %.2f s, its longest report (%s) %.2f s" %
          (big[0][0], big[0][1], big[1]["record"], tail[0].split(",")[0], tail[2]))
    if a.timeline:
        with open(a.times) as f:
            rows = json.load(f)
        print("measured: last job ends at %.2f s" % max(r["engine_end"] for r in rows))
    print("%8s %10s %8s   %s" % ("threads", "seconds", "speedup", "last to finish: source "
                                    "(recorded from, to; its last report's end)"))
    base = None
    for t in [int(x) for x in a.threads.split(",")]:
        finish = {}
        s = simulate(sources, t, a.order, finish)
        base = base or s
        last = sorted(finish.items(), key=lambda kv: -kv[1][2])[:2]
        print("%8d %10.2f %8.2f   %s" % (t, s, base / s, "; ".join(
            "%s n=%d (%.2f-%.2f; %.2f)" % (sources[i][0][0].split(":")[0], sources[i][0][1], *f)
            for i, f in last)))


if __name__ == "__main__":
    main()
