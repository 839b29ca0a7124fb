#!/usr/bin/env python3
"""The load balancers' model beside the GPU (docs/experiments/load-balancing.md, "The H100 against
the model"): where the model's ABP-to-static ratio and the measured one part, which cost does it.

    tools/balance-compare.py grid MODEL_CSV TIME_GRID_CSV [--dist tube] [--launch-steps 2699]
        The model grid (tools/balance-grid.sh) beside the measured one (tools/balance-device.sh's
        time-grid.csv): per balancer and blocks, the measured time, the AGPU time (the CSV's,
        which leaves out launches, plus launches x --launch-steps) and the latency rounds, each
        over the static list's, and the measured time per AGPU step and per latency round.

    tools/balance-compare.py ncu DIR [--models build/bin/models]
                                     [--launches build/tools/agpu-launches] [--cache DIR2]
                                     [--machine h100]
        Nsight Compute's counters of the CUDA twins (DIR holds profile-cases.csv and the raw-page
        ncu.csv of tools/balance-ncu.sh) beside the SIMT twins' counts under the same case: per
        case the root's launch and the rest (kernel time against AGPU time, ns per AGPU step),
        warp instructions, global atomic and load requests against the model's atomic and load
        warp instructions, the atomic chain, achieved occupancy, and the long-scoreboard (a
        load's wait) and membar (a fence's) stalls per issued instruction after the root. The
        model's side runs once per case (`models run` and agpu-launches at the case's n, a minute
        or less each) and is kept under --cache as JSON. The AGPU times here are the kernels'
        alone (launch_ns=0), as ncu's durations are.

    tools/balance-compare.py predict CASE... [--models ...] [--launches ...] [--cache DIR2]
        Only the model's side of `ncu` for CASEs written as the harness writes them
        (balance/abp:n=500000,dist=tube,blocks=132), into the cache.

Ratios are measured / model unless said otherwise. No timing threshold anywhere: this prints."""
import argparse
import csv
import json
import os
import re
import subprocess
import sys


def number(text):
    """A number as ncu or the harness writes it ("1,234", "5.2", "n/a" -> None)."""
    text = text.replace(",", "").strip()
    try:
        return float(text)
    except ValueError:
        return None


def spec_parts(spec):
    """'balance/abp:n=500000,dist=tube,blocks=132' -> ('abp', {'n': '500000', ...})."""
    name, _, params = spec.partition(":")
    kv = dict(p.split("=", 1) for p in params.split(",") if "=" in p)
    return name.split("/")[-1], kv


# ---- grid ----

def read_model_grid(path, launch_steps):
    rows = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            blocks = 0 if r["blocks"] == "per-task" else int(r["blocks"])
            rows[(r["balancer"], int(r["threads"]), blocks)] = (
                int(r["agpu_time"]) + int(r["launches"]) * launch_steps, float(r["latency_rounds"]))
    return rows


def read_time_grid(path, dist):
    rows = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            balancer, kv = spec_parts(r["case"])
            if kv.get("dist", "uniform") != dist or int(r["mismatches"]) != 0:
                continue
            blocks = 0 if balancer == "static" else int(kv.get("blocks", 32))
            rows[(balancer, int(kv.get("threads", 32)), blocks)] = float(r["median_us"])
    return rows


def grid(args):
    model = read_model_grid(args.model_csv, args.launch_steps)
    measured = read_time_grid(args.time_grid_csv, args.dist)
    keys = sorted(k for k in measured if k in model)
    statics = {t: k for k in keys for t in [k[1]] if k[0] == "static"}
    print("| balancer | threads | blocks | measured us | / static | AGPU | / static | measured "
          "ns per AGPU step | latency rounds | / static | measured us per round |")
    print("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
    for k in keys:
        if k[1] not in statics:
            continue
        s = statics[k[1]]
        us, (steps, rounds) = measured[k], model[k]
        print("| %s | %d | %s | %.0f | %.3f | %d | %.3f | %.2f | %.0f | %.3f | %.3f |"
              % (k[0], k[1], k[2] or "per task", us, us / measured[s], steps, steps / model[s][0],
                 us * 1000 / steps, rounds, rounds / model[s][1], us / rounds))


# ---- ncu ----

NCU_METRICS = {
    "time_ns": "gpu__time_duration.sum",
    "insts": "smsp__inst_executed.sum",
    "ld_requests": "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "atom_requests": "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum",
    "red_requests": "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum",
    "occupancy_pct": "sm__warps_active.avg.pct_of_peak_sustained_active",
    "long_scoreboard":
        "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",
    "membar": "smsp__average_warps_issue_stalled_membar_per_issue_active.ratio",
}
SUMMED = ("time_ns", "insts", "ld_requests", "atom_requests", "red_requests")


def read_ncu(path):
    """ncu --csv --page raw: a header, a units row, then one row per kernel launch by ID."""
    launches = {}
    with open(path) as f:
        lines = [line for line in f if not line.startswith("==")]
    reader = csv.reader(lines)
    header = next(reader)
    for row in reader:
        if not row or not row[0].strip().isdigit():
            continue
        cells = dict(zip(header, row))
        launches[int(row[0])] = {k: number(cells.get(m, "")) for k, m in NCU_METRICS.items()}
    return launches


def read_cases(path):
    with open(path) as f:
        return [(int(r["launch"]), int(r["launches"]), r["case"]) for r in csv.DictReader(f)
                if int(r["mismatches"]) == 0]


def model_of(spec, args):
    """The SIMT twin's counts for @spec under the machine preset, from the cache or a run."""
    name, kv = spec.split(":", 1)[0], spec_parts(spec)[1]
    n = kv.pop("n")
    kv.setdefault("threads", "32")
    algo = name + ":" + ",".join("%s=%s" % p for p in sorted(kv.items()))
    path = os.path.join(args.cache, re.sub(r"[^a-z0-9]+", "_", algo) + "_n" + n + ".json")
    if os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    agpu = "agpu:machine=%s,atomics=serial" % args.machine
    run = subprocess.run([args.models, "run", algo, "--n", n, "-f", "json", "--threads", "0",
                          "-e", "count", "-e", agpu,
                          "-e", "occupancy:machine=%s,regs=40" % args.machine],
                         check=True, capture_output=True, text=True)
    counters = {r["engine"]: r["counters"] for r in json.loads(run.stdout)["reports"]}
    per_launch = subprocess.run([args.launches, algo, n, agpu], check=True, capture_output=True,
                                text=True).stdout.split("\n")
    # Kernel time only: Nsight Compute's durations leave out each launch's host side.
    launch_steps = counters["agpu"]["launch_time"] // counters["agpu"]["launches"]
    times = [int(line.split("\t")[2]) - launch_steps for line in per_launch[1:]
             if line[:1].isdigit()]
    model = {"algo": algo, "n": int(n), "root_steps": times[0], "rest_steps": sum(times[1:]),
             "launches": len(times), "insts": counters["count"]["warp_insts"],
             "ld": counters["count"]["warp_ld_global"],
             "atom": counters["count"]["warp_atom_global"],
             "atomic_chain": counters["agpu"]["atomic_chain"],
             "latency_rounds": counters["occupancy"]["latency_rounds"]}
    os.makedirs(args.cache, exist_ok=True)
    with open(path, "w") as f:
        json.dump(model, f, indent=1)
    return model


def ratio(a, b):
    return "%.2f" % (a / b) if a is not None and b else "-"


def ncu(args):
    launches = read_ncu(os.path.join(args.dir, "ncu.csv"))
    rows = []
    for first, count, spec in read_cases(os.path.join(args.dir, "profile-cases.csv")):
        ids = [i for i in range(first, first + count) if i in launches]
        if len(ids) != count:
            print("%s: %d of its %d launches in ncu.csv; left out" % (spec, len(ids), count),
                  file=sys.stderr)
            continue
        sums = {k: sum(launches[i][k] or 0 for i in ids) for k in SUMMED}
        rest = ids[1:]
        # Occupancy and stalls weighted by each kernel's time: what the run as a whole saw.
        def weighted(key, kernels):
            t = sum(launches[i]["time_ns"] or 0 for i in kernels)
            vals = [(launches[i][key], launches[i]["time_ns"] or 0) for i in kernels]
            if not t or any(v is None for v, _ in vals):
                return None
            return sum(v * w for v, w in vals) / t
        rows.append((spec, ids, sums, weighted("occupancy_pct", rest),
                     (weighted("long_scoreboard", rest), weighted("membar", rest)),
                     model_of(spec, args), launches))
    print("| case | launches | root us | rest us | AGPU root | AGPU rest | ns/step root | "
          "ns/step rest | insts (meas/model) | global atom+red req (meas/model) | global ld req "
          "(meas/model) | atomic chain | occupancy rest % | rest's stalls per issue: long scoreboard, "
          "membar |")
    print("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
    for spec, ids, sums, occ, stalls, m, per in rows:
        root_ns = per[ids[0]]["time_ns"] or 0
        rest_ns = sums["time_ns"] - root_ns
        atoms = sums["atom_requests"] + sums["red_requests"]
        print("| %s | %d/%d | %.0f | %.0f | %d | %d | %.2f | %.2f | %.0f/%d = %s | %.0f/%d = %s "
              "| %.0f/%d = %s | %d | %s | %s |"
              % (spec.split("/", 1)[1], len(ids), m["launches"], root_ns / 1000, rest_ns / 1000,
                 m["root_steps"], m["rest_steps"], root_ns / m["root_steps"],
                 rest_ns / m["rest_steps"], sums["insts"], m["insts"], ratio(sums["insts"], m["insts"]),
                 atoms, m["atom"], ratio(atoms, m["atom"]), sums["ld_requests"], m["ld"],
                 ratio(sums["ld_requests"], m["ld"]), m["atomic_chain"],
                 "-" if occ is None else "%.1f" % occ,
                 ", ".join("-" if v is None else "%.1f" % v for v in stalls)))
    # Each dynamic case against the static list of its particle set: measured, AGPU, rounds.
    static = {spec_parts(r[0])[1].get("dist"): r for r in rows if spec_parts(r[0])[0] == "static"}
    print("\n| case | measured / static | AGPU / static | latency rounds / static |")
    print("|---|--:|--:|--:|")
    for spec, _, sums, _, _, m, _ in rows:
        s = static.get(spec_parts(spec)[1].get("dist"))
        if not s or s[0] == spec:
            continue
        sm = s[5]
        print("| %s | %.3f | %.3f | %.3f |"
              % (spec.split("/", 1)[1], sums["time_ns"] / s[2]["time_ns"],
                 (m["root_steps"] + m["rest_steps"]) / (sm["root_steps"] + sm["rest_steps"]),
                 m["latency_rounds"] / sm["latency_rounds"]))


def predict(args):
    for spec in args.cases:
        m = model_of(spec, args)
        print("%s: root %d, rest %d AGPU steps" % (spec, m["root_steps"], m["rest_steps"]))


def add_model_options(parser):
    parser.add_argument("--models", default="build/bin/models")
    parser.add_argument("--launches", default="build/tools/agpu-launches")
    parser.add_argument("--cache", default="docs/results/balance-model/h100-cases")
    parser.add_argument("--machine", default="h100")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    g = sub.add_parser("grid")
    g.add_argument("model_csv")
    g.add_argument("time_grid_csv")
    g.add_argument("--dist", default="tube")
    g.add_argument("--launch-steps", type=int, default=2699,
                   help="MP instructions of one launch (the preset's; h100: 2,699)")
    n = sub.add_parser("ncu")
    n.add_argument("dir")
    add_model_options(n)
    p = sub.add_parser("predict")
    p.add_argument("cases", nargs="+")
    add_model_options(p)
    args = parser.parse_args()
    {"grid": grid, "ncu": ncu, "predict": predict}[args.command](args)


if __name__ == "__main__":
    main()
