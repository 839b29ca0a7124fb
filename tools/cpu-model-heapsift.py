#!/usr/bin/env python3
"""Reads the CSV of tools/cpu-model-heapsift.c and prints, per page size and sift variant, the
fastest ns per sift level at each n (rows whose 2 MiB pages were not all granted left out), the
slope of that time against log2 n beyond the TLB reach, and the slopes of the two differences:
branchy - branchless (what mispredictions cost less what speculation saves) and 4k - huge (the
walks). Usage: tools/cpu-model-heapsift.py FILE.csv [REACH_BYTES]  (default 6.4 MiB, the x86-64
preset's 1638 pages of 4 KiB, as tools/cpu-model-slopes.py)."""
import csv
import math
import sys

REACH = 1638 * 4096


def slope(points):
    """Least-squares slope of (x, y) pairs; None for fewer than two."""
    if len(points) < 2:
        return None
    mx = sum(x for x, _ in points) / len(points)
    my = sum(y for _, y in points) / len(points)
    sxx = sum((x - mx) ** 2 for x, _ in points)
    return sum((x - mx) * (y - my) for x, y in points) / sxx


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    reach = float(sys.argv[2]) if len(sys.argv) > 2 else REACH
    best = {}
    with open(sys.argv[1]) as f:
        for r in csv.DictReader(f):
            if float(r["huge_granted"]) < 1:
                continue
            key = (r["pages"], r["variant"], int(r["n"]))
            best[key] = min(best.get(key, math.inf), float(r["ns_per_level"]))
    sizes = sorted({n for _, _, n in best})
    series = sorted({(p, v) for p, v, _ in best})
    print("n," + ",".join(f"{p}/{v}" for p, v in series))
    for n in sizes:
        print(f"{n}," + ",".join(f"{best.get((p, v, n), math.nan):.3f}" for p, v in series))
    large = [n for n in sizes if n * 8 > reach]

    def slope_of(f):
        pts = [(math.log2(n), f(n)) for n in large]
        pts = [(x, y) for x, y in pts if not math.isnan(y)]
        s = slope(pts)
        return "-" if s is None else f"{s:+.3f}"

    def t(p, v):
        return lambda n: best.get((p, v, n), math.nan)

    print(f"slopes beyond {reach / 2**20:.1f} MiB (ns per level per doubling of n), "
          f"n = {large[0] if large else '-'}..{large[-1] if large else '-'}")
    for p, v in series:
        print(f"  {p}/{v}: {slope_of(t(p, v))}")
    for p in sorted({p for p, _ in series}):
        print(f"  {p}: branchy - branchless: "
              f"{slope_of(lambda n: t(p, 'branchy')(n) - t(p, 'branchless')(n))}")
    for v in sorted({v for _, v in series}):
        print(f"  {v}: 4k - huge: {slope_of(lambda n: t('4k', v)(n) - t('huge', v)(n))}")


if __name__ == "__main__":
    main()
