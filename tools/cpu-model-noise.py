#!/usr/bin/env python3
"""How much a cost-model run's timings move, read from its journal
(docs/experiments/cpu-model.md, "Session 10").

A journal keeps every repetition of every point (`time` rows, one per pass; the passes time all
points in turn). Per 4 KiB point of a journal this prints the minimum of each pass and the spread
of those minima (largest / smallest: what the point's time would move by had the run done only
one pass), and a summary: the median and the largest spread, and how many points spread more than
10%. With a second journal of the same points (another run), it prints per point the ratio of the
two runs' times (each the minimum of all its repetitions) divided by the median ratio (the
host's speed that day), and the spread of those normalized ratios.

  tools/cpu-model-noise.py JOURNAL [JOURNAL2]
  tools/cpu-model-noise.py --split JOURNAL OUTDIR [K]

--split writes OUTDIR/pass-A-B.../vat-journal.csv for each set of K passes (default 1): the
journal with only those passes' time (and thp) rows, renumbered from 0, and `option,reps,K`;
`models experiment vat --from OUTDIR/pass-A -o OUTDIR/pass-A` refits it, which gives the R² a
run of K passes would have reported from the same host state (the spread of those R² is what
the timing noise costs)."""
import csv
import itertools
import os
import statistics
import sys


def pass_minima(path):
    """{(algorithm, n): {pass: min seconds}} of the 4 KiB series."""
    out = {}
    with open(path) as f:
        for row in csv.reader(f):
            if row and row[0] == "time" and row[3] == "4k":
                secs = [float(x) for x in row[7:]]
                out.setdefault((row[1], int(row[2])), {})[int(row[4])] = min(secs)
    return out


def point_spreads(minima):
    """{point: largest pass minimum / smallest} of the points with more than one pass."""
    return {p: max(m.values()) / min(m.values()) for p, m in minima.items() if len(m) > 1}


def summary(label, values):
    vals = sorted(values)
    if not vals:
        return f"{label}: no points"
    over = sum(1 for v in vals if v > 1.10)
    return (f"{label}: {len(vals)} points, median {statistics.median(vals):.3f}, "
            f"90th percentile {vals[int(0.9 * (len(vals) - 1))]:.3f}, largest {vals[-1]:.3f}, "
            f"{over} above 1.10")


def report_one(path):
    minima = pass_minima(path)
    spreads = point_spreads(minima)
    print("algorithm,n,pass_minima_ns,spread")
    for (algo, n), m in sorted(minima.items()):
        mins = " ".join(f"{m[k] * 1e9:.0f}" for k in sorted(m))
        s = spreads.get((algo, n))
        print(f"{algo},{n},{mins},{s:.3f}" if s else f"{algo},{n},{mins},")
    print(summary("spread of the pass minima", spreads.values()))
    by_algo = {}
    for (algo, _), s in spreads.items():
        by_algo.setdefault(algo, []).append(s)
    for algo, vals in sorted(by_algo.items()):
        print(f"  {algo}: median {statistics.median(vals):.3f}, largest {max(vals):.3f}")
    return minima


def report_two(a, b):
    ta = {p: min(m.values()) for p, m in a.items()}
    tb = {p: min(m.values()) for p, m in b.items()}
    common = sorted(set(ta) & set(tb))
    ratios = {p: tb[p] / ta[p] for p in common}
    host = statistics.median(ratios.values())
    print(f"second run / first: median ratio {host:.3f} over {len(common)} common points")
    norm = {p: r / host for p, r in ratios.items()}
    dev = [max(r, 1 / r) for r in norm.values()]
    print(summary("normalized ratio (max of r, 1/r)", dev))
    by_algo = {}
    for (algo, _), r in norm.items():
        by_algo.setdefault(algo, []).append(r)
    for algo, vals in sorted(by_algo.items()):
        print(f"  {algo}: median {statistics.median(vals):.3f}, range {min(vals):.3f} to "
              f"{max(vals):.3f}")


def split(path, outdir, k):
    with open(path) as f:
        rows = list(csv.reader(f))
    passes = sorted({int(r[4]) for r in rows if r and r[0] == "time"})
    for chosen in itertools.combinations(passes, k):
        renumber = {p: i for i, p in enumerate(chosen)}
        d = os.path.join(outdir, "pass-" + "-".join(str(p) for p in chosen))
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "vat-journal.csv"), "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            for r in rows:
                if r and r[0].startswith("#"):
                    f.write(",".join(r) + "\n")
                elif r and r[0] in ("time", "thp"):
                    if int(r[4]) in renumber:
                        w.writerow(r[:4] + [str(renumber[int(r[4])])] + r[5:])
                elif r and r[0] == "option" and r[1] == "reps":
                    w.writerow(["option", "reps", str(k)])
                else:
                    w.writerow(r)
        print(d)


def main(argv):
    if len(argv) in (4, 5) and argv[1] == "--split":
        split(argv[2], argv[3], int(argv[4]) if len(argv) == 5 else 1)
        return 0
    if len(argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    a = report_one(argv[1])
    if len(argv) == 3:
        report_two(a, pass_minima(argv[2]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
