#!/usr/bin/env python3
"""Print a JSON summary of a CSV file: rows, columns, inferred types, missing values, numeric ranges."""
import csv
import json
import sys

MAX_ROWS = 100_000


def infer(value):
    if value == "":
        return None
    for kind, cast in (("integer", int), ("number", float)):
        try:
            cast(value)
            return kind
        except ValueError:
            pass
    return "text"


ORDER = ["integer", "number", "text"]


def widest(current, kind):
    if current is None:
        return kind
    return ORDER[max(ORDER.index(current), ORDER.index(kind))]


def main(path):
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        columns = {name: {"type": None, "missing": 0, "min": None, "max": None} for name in reader.fieldnames or []}
        rows = 0
        for row in reader:
            rows += 1
            if rows > MAX_ROWS:
                break
            for name, value in row.items():
                col = columns[name]
                kind = infer(value or "")
                if kind is None:
                    col["missing"] += 1
                    continue
                col["type"] = widest(col["type"], kind)
                if kind in ("integer", "number"):
                    number = float(value)
                    col["min"] = number if col["min"] is None else min(col["min"], number)
                    col["max"] = number if col["max"] is None else max(col["max"], number)
    print(json.dumps({"rows": min(rows, MAX_ROWS), "truncated": rows > MAX_ROWS, "columns": columns}, indent=2))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: summarize.py FILE.csv")
    main(sys.argv[1])
