#!/usr/bin/env python3
"""Turns the vat.json of a VAT experiment run before the journal existed into a journal
(vat-journal.csv) holding its timings and probe, so that `models experiment vat --resume DIR`
makes the counts here, with the measured machine's caches and TLBs, and `--from DIR` refits
it (docs/experiments/cpu-model.md, "Refitting the stored Xeon run").

    tools/vat-journal-import.py VAT.JSON DIR --max-bytes 8388608 --growth 2 --reps 3 \
        --machine-name "Intel(R) Xeon(R) Processor, 16 CPUs" --assoc 12,16,15

vat.json keeps each point's minimum, median and number of repetitions, not every repetition:
the journal gets repetitions that give back that minimum and median (one at the minimum, the
rest at the median), which is all the experiment reads of them. The checksum of each point is
the native build's, from `models run --native` (MODELS, default build/bin/models), so that the
instrumented runs are checked against it as in any run. The TLBs are the x86-64 preset's (what
machine=host estimated on a host whose cpuid reports none); --assoc gives the ways of L1, L2, L3
(the run's `models list machines` names them)."""
import argparse
import json
import os
import subprocess

LINE = 64


def pow2_sets(size, assoc):
    sets = 1
    while sets * 2 * assoc * LINE <= size:
        sets *= 2
    return sets


def csv_field(s):
    return '"' + s.replace('"', '""') + '"' if any(c in s for c in ',"\n') else s


def native_checksum(models, algorithm, n):
    out = subprocess.run([models, "run", "--native", algorithm, "--n", str(n), "-p", "pages=4k",
                          "--seed", "1"], check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        if line.strip().startswith("checksum"):
            return int(line.split()[1])
    raise SystemExit(f"vat-journal-import: no checksum from models run --native {algorithm}")


def tlb_spec(models):
    out = subprocess.run([models, "run", "scan/seq", "--n", "1024", "-e", "tlb:machine=x86-64",
                          "-f", "csv"], check=True, capture_output=True, text=True).stdout
    spec = next(csv_row for csv_row in out.splitlines() if csv_row.startswith("tlb,"))
    spec = spec.split('"')[1]
    keys = [k for k in spec.split(":", 1)[1].split(",") if not k.startswith("machine=")]
    return "tlb:" + ",".join(keys)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("json")
    ap.add_argument("dir")
    ap.add_argument("--max-bytes", type=int, required=True)
    ap.add_argument("--growth", required=True, help="as the run's option was printed, e.g. 2")
    ap.add_argument("--reps", type=int, required=True)
    ap.add_argument("--machine-name", required=True)
    ap.add_argument("--assoc", required=True, help="L1,L2,L3 ways")
    args = ap.parse_args()
    models = os.environ.get("MODELS", "build/bin/models")
    d = json.load(open(args.json))
    cache = d["model"]["cache_bytes"]
    assoc = [int(a) for a in args.assoc.split(",")]
    levels = []
    for size, ways in zip(cache, assoc):
        modelled = min(size, 2 * args.max_bytes)
        levels.append(f"{pow2_sets(modelled, ways) * ways * LINE}:{ways}:{LINE}")
    p = d["cost_models"]["probe"]
    rows = ["# models experiment vat: journal, version 1 (imported from vat.json by "
            "tools/vat-journal-import.py)"]
    options = [("machine", d["machine"]), ("max_bytes", args.max_bytes), ("min_n", 1024),
               ("growth", args.growth), ("reps", args.reps),
               ("min_seconds", "0.050000000000000003"), ("algorithms", "all"), ("huge", 0),
               ("tc_cells", 0), ("seed", 1), ("caches", "0,0,0")]
    rows += [f"option,{k},{csv_field(str(v))}" for k, v in options]
    rows.append("machine," + csv_field(args.machine_name))
    rows.append("setup,caches," + ",".join(str(x) for x in cache + assoc) + ",0")
    rows.append("setup,cache_spec,cache:levels=" + "/".join(levels))
    rows.append("setup,tlb_spec," + csv_field(tlb_spec(models)))
    rows.append("probe," + ",".join(repr(float(x)) for x in p["chase_ns"])
                + "," + ",".join(str(x) for x in p["chase_bytes"])
                + "," + ",".join(repr(float(x)) for x in p["random_ns"])
                + f",{float(p['stream_ns'])!r},{float(p['mispredict_ns'])!r}")
    for pt in d["points"]:
        if pt["pages"] != "4K":
            continue
        per_pass = pt["reps"] // args.reps
        checksum = native_checksum(models, pt["algorithm"], pt["n"])
        times = [pt["seconds_min"]] + [pt["seconds_median"]] * (pt["reps"] - 1)
        for k in range(args.reps):
            chunk = times[k * per_pass:(k + 1) * per_pass]
            rows.append(f"time,{pt['algorithm']},{pt['n']},4k,{k},{per_pass},{checksum},"
                        + ",".join(repr(float(t)) for t in chunk))
    os.makedirs(args.dir, exist_ok=True)
    with open(os.path.join(args.dir, "vat-journal.csv"), "w") as f:
        f.write("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
