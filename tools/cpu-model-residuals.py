#!/usr/bin/env python3
"""Which points keep a cost model's leave-one-algorithm-out R^2 down, and what their L1 conflict
misses would have to cost (docs/experiments/cpu-model.md, "Session 12").

R^2 is taken on ns per element, so a few slow points (a product's or a search's largest sizes)
weigh far more than a scan's. Per algorithm this prints its share of the LOAO residual (its sum of
squared errors over the total sum of squares: 1 - R^2 is the sum of the shares), the R^2 had that
algorithm alone been predicted exactly, its median LOAO error and its worst point.

Then, per point with L1 conflict misses (the set-associative L1's misses beyond those of a fully
associative cache of the same size, the journal's cache_misses_l1 - em_misses_l1: lines a column
walk with a power-of-two stride crowds into a few sets), their count per operation and the price
each would need for the LOAO prediction to meet the measured time, set beside the probe's price
of an independent load's L1 miss (L2 - L1, independent loads) that the model charges them now.

  tools/cpu-model-residuals.py DIR [MODEL]

DIR holds vat-journal.csv and vat-models-points.csv of one run (`models experiment vat -o DIR`,
or `--from DIR`); MODEL defaults to the last model of the points file."""
import csv
import math
import statistics
import sys

import cpu_model_journal

CONFLICTS_SHOWN = 0.05   # conflict misses per operation below which a point is not listed


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    d = sys.argv[1]
    counts, probe = cpu_model_journal.read(d + "/vat-journal.csv")
    with open(d + "/vat-models-points.csv") as f:
        points = list(csv.DictReader(f))
    models = [k[:-5] for k in points[0] if k.endswith("_loao")]
    model = sys.argv[2] if len(sys.argv) > 2 else models[-1]
    rows = [p for p in points if p[model + "_loao"] != ""]
    y = [float(p["measured_ns_per_elem"]) for p in rows]
    mean = sum(y) / len(y)
    sst = sum((v - mean) ** 2 for v in y)
    by_algo = {}
    for p, v in zip(rows, y):
        pred = float(p[model + "_loao"])
        by_algo.setdefault(p["algorithm"], []).append((p, v, pred))
    sse = {a: sum((v - pred) ** 2 for _, v, pred in pts) for a, pts in by_algo.items()}
    total = sum(sse.values())
    print(f"model {model}: LOAO R^2 {1 - total / sst:.3f} over {len(rows)} points")
    print(f"{'algorithm':22s} {'share':>6s} {'R^2 if exact':>12s} {'median':>7s}  worst point")
    for a in sorted(sse, key=sse.get, reverse=True):
        errs = [abs(pred - v) / v for _, v, pred in by_algo[a]]
        p, v, pred = max(by_algo[a], key=lambda t: (t[1] - t[2]) ** 2)
        print(f"{a:22s} {sse[a] / sst:6.3f} {1 - (total - sse[a]) / sst:12.3f} "
              f"{100 * statistics.median(errs):6.1f}%  n=2^{math.log2(int(p['n'])):.0f}: "
              f"{v:.1f} ns/elem measured, {pred:.1f} predicted")
    # The probe row's independent-load readings follow its five chase readings and their five sizes.
    l1_miss = probe[11] - probe[10] if probe and len(probe) > 11 else float("nan")
    print(f"\nL1 conflict misses (cache_misses_l1 - em_misses_l1 per operation); the model charges "
          f"each as an independent load's L1 miss, {l1_miss:.2f} ns (the probe)")
    for a, pts in by_algo.items():
        exact = 0.0
        for p, v, pred in pts:
            c = counts.get((a, int(p["n"])))
            if c is None:
                continue
            ops = c["ram_ops"] / int(p["n"])
            per_op = (c["cache_misses_l1"] - min(c["em_misses_l1"], c["cache_misses_l1"])) \
                / c["ram_ops"]
            if per_op < CONFLICTS_SHOWN:
                continue
            exact += (v - pred) ** 2
            print(f"  {a:20s} n=2^{math.log2(int(p['n'])):.0f}: {per_op:.2f} per op, measured "
                  f"{v / ops:.3f} ns/op, predicted {pred / ops:.3f}: each would cost "
                  f"{(v - pred) / ops / per_op:+.2f} ns more")
        if exact:
            print(f"  {a}: R^2 had these points been predicted exactly: "
                  f"{1 - (total - exact) / sst:.3f}")

if __name__ == "__main__":
    main()
