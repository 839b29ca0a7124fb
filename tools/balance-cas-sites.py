#!/usr/bin/env python3
"""The lock-free queue's CASes and the octree's leaf adds, site by site, from Nsight Compute's
source page of the CUDA twin's persistent launch (tools/balance-atomics.sh's
lockfree-DIST-source.csv; docs/experiments/load-balancing.md, "The H100's queue CASes, site by
site").

    tools/balance-cas-sites.py CSV...

The page lists SASS only (ncu --print-source sass), so the sites are told apart by what the SASS
of LockFree::get and ::put (src/algos/cuda/balance.cu) does at each:
  - a slot CAS returns the old value and is followed by its test and the retry branch, so the
    instruction after the branch runs once per success: the executions of the CAS less that are
    its failures. The dequeue's CAS swaps in TAKEN (0xffffffff, set by the instruction before it);
    the enqueue's, unrolled once per child, compares with EMPTY (0).
  - a pointer move (the lazy beg or end CAS) discards its result (RZ).
  - an ATOMG.E.ADD's thread instructions over its warp instructions are its lanes a request: the
    leaf adds' many lanes each add their own count, and the page says whether that add is one
    request a warp or took the compiler's merged (full-warp scan) path.
  - the queue's loads are volatile (LDG.E.STRONG.SYS): the first is the dequeue's read of beg (one
    an attempt), the next its scan's (one a slot); each enqueue site reads end at +0x4 and then
    scans. Slots an attempt are a scan load's executions over its pointer load's.
Prints one block per CSV. Counts only; no threshold."""
import csv
import sys


def read_sass(path):
    """[(sass text, warp instructions, thread instructions)] in address order."""
    with open(path) as f:
        rows = list(csv.reader(f))
    header = rows[1]
    warp, thread = header.index("Instructions Executed"), header.index(
        "Thread Instructions Executed")
    return [(r[1].strip(), int(r[warp]), int(r[thread])) for r in rows[2:]]


def cas_sites(sass):
    """The queue's CAS sites: dequeue and enqueue slot CASes as (executions, successes), and the
    pointer moves' executions."""
    dequeue, enqueue, moves = [], [], 0
    for i, (text, runs, _) in enumerate(sass):
        if "ATOMG.E.CAS" not in text:
            continue
        result = text.split(",")[1].strip()
        if result == "RZ":
            moves += runs
            continue
        # CAS, its test, the retry branch: the next instruction runs once per success.
        successes = sass[i + 3][1]
        takes = "-0x1" in sass[i - 1][0]
        (dequeue if takes else enqueue).append((runs, successes))
    return dequeue, enqueue, moves


def scan_loads(sass):
    """(dequeue attempts, dequeue slots read, enqueue attempts, enqueue slots read)."""
    loads = [(text, runs) for text, runs, _ in sass if text.startswith("LDG.E.STRONG.SYS")]
    enq_attempts = enq_slots = 0
    for k, (text, runs) in enumerate(loads):
        if "+0x4]" in text:
            enq_attempts += runs
            enq_slots += loads[k + 1][1]
    return loads[0][1], loads[1][1], enq_attempts, enq_slots


def per_success(sites):
    runs = sum(r for r, _ in sites)
    ok = sum(s for _, s in sites)
    return runs, ok, runs - ok, (runs - ok) / ok if ok else float("nan")


def report(path):
    sass = read_sass(path)
    dequeue, enqueue, moves = cas_sites(sass)
    print(f"== {path}")
    for name, sites in (("dequeue", dequeue), ("enqueue", enqueue)):
        runs, ok, failed, rate = per_success(sites)
        print(f"{name}: {len(sites)} site(s), {runs} CASes, {ok} succeeded, {failed} failed, "
              f"{rate:.2f} failures a success")
    print(f"pointer moves: {moves}")
    deq_attempts, deq_slots, enq_attempts, enq_slots = scan_loads(sass)
    print(f"slots an attempt: dequeue {deq_slots / deq_attempts:.2f} ({deq_attempts} attempts), "
          f"enqueue {enq_slots / enq_attempts:.2f} ({enq_attempts} attempts)")
    atoms = sum(r for t, r, _ in sass if "ATOMG" in t)
    print(f"all ATOMG warp instructions: {atoms}")
    for text, runs, threads in sass:
        if "ATOMG.E.ADD" in text:
            lanes = threads / runs if runs else 0.0
            print(f"  add {runs:>7} warp instr, {threads:>7} lanes ({lanes:.2f} a request): {text}")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for path in sys.argv[1:]:
        report(path)


if __name__ == "__main__":
    main()
