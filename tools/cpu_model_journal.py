"""Reading a `models experiment vat` journal (vat-journal.csv) for the cpu-model-*.py tools."""

import csv


def read(path):
    """The 4 KiB series' counts rows, (algorithm, n) -> {column: value}, and the probe row (a list
    of floats; None when the journal has none)."""
    counts, names, probe = {}, None, None
    with open(path) as f:
        for row in csv.reader(f):
            if not row or row[0].startswith("#"):
                continue
            if row[0] == "columns":
                names = row[1:]
            elif row[0] == "counts" and row[3] == "4k" and names:
                counts[(row[1], int(row[2]))] = dict(zip(names, map(int, row[5:])))
            elif row[0] == "probe":
                probe = [float(v) for v in row[1:]]
    return counts, probe
