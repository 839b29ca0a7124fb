#!/usr/bin/env python3
"""Which count would close a cost model's slope gap beyond the TLB reach
(docs/experiments/cpu-model.md, "The slopes beyond the TLB reach").

For each algorithm asked for, over its 4 KiB points whose arrays exceed REACH bytes: the slope
against log2 n of the measured ns per operation, of a model's LOAO prediction, and of a few
counts per operation (page walks, L1 DTLB misses, dependent L2 and L3 misses, chase misses where
the journal has them). The gap between the measured and the predicted slope, divided by a count's
slope, is what each more of that count would have to cost (ns) for that count alone to close it;
a count whose price comes out near a latency the probe measured is a candidate term, one whose
price is absurd (negative, or far beyond memory latency) is not.

  tools/cpu-model-slopes.py DIR [MODEL [ALGO ...]]

DIR holds vat-journal.csv and vat-models-points.csv of one run (`models experiment vat -o DIR`,
or `--from DIR`); MODEL defaults to the last model of the points file; ALGO to binsearch/sorted
and heap/sort. REACH is the x86-64 preset's (1638 pages of 4 KiB, 6.4 MiB)."""
import csv
import math
import sys

import cpu_model_journal

REACH = 1638 * 4096
COUNTS = ["walks", "tlb_misses", "dependent_misses_l2", "dependent_misses_l3",
          "chase_misses_l2", "chase_misses_l3"]


def slope(xs, ys):
    """Least-squares slope of ys against xs (None with fewer than two points)."""
    if len(xs) < 2:
        return None
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else None


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    d = sys.argv[1]
    counts = cpu_model_journal.read(d + "/vat-journal.csv")[0]
    with open(d + "/vat-models-points.csv") as f:
        points = list(csv.DictReader(f))
    models = [k[:-5] for k in points[0] if k.endswith("_loao")]
    model = sys.argv[2] if len(sys.argv) > 2 else models[-1]
    algos = sys.argv[3:] or ["binsearch/sorted", "heap/sort"]
    print(f"model {model}; slopes per doubling of n beyond {REACH / 2**20:.1f} MiB")
    for algo in algos:
        xs, meas, pred, per_op = [], [], [], {c: [] for c in COUNTS}
        for p in points:
            n = int(p["n"])
            c = counts.get((algo, n))
            if p["algorithm"] != algo or int(p["bytes"]) <= REACH or c is None:
                continue
            loao = p.get(model + "_loao", "")
            if loao == "":
                continue
            ops = c["ram_ops"]
            xs.append(math.log2(n))
            meas.append(float(p["measured_ns_per_elem"]) * n / ops)
            pred.append(float(loao) * n / ops)
            for name in COUNTS:
                per_op[name].append(c.get(name, float("nan")) / ops)
        sm, sp = slope(xs, meas), slope(xs, pred)
        if sm is None or sp is None:
            print(f"{algo}: fewer than two sizes beyond the reach")
            continue
        print(f"{algo}: sizes 2^{xs[0]:.0f}..2^{xs[-1]:.0f}: measured {sm:+.3f} ns/op, "
              f"predicted {sp:+.3f} ({sp / sm:.2f} of measured), gap {sm - sp:+.3f}")
        for name in COUNTS:
            s = slope(xs, per_op[name])
            if s is None or math.isnan(s):
                continue
            price = (sm - sp) / s if abs(s) > 1e-12 else float("inf")
            print(f"  {name:22s} per op {per_op[name][0]:.4f} .. {per_op[name][-1]:.4f}, "
                  f"slope {s:+.5f}: closes the gap at {price:8.1f} ns each")


if __name__ == "__main__":
    main()
