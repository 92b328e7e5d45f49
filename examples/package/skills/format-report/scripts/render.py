#!/usr/bin/env python3
"""Render a name,value CSV as a Markdown table sorted by value, with a total line."""
import csv
import sys


def main(path: str) -> int:
    rows: list[tuple[str, float]] = []
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        for line, row in enumerate(reader, start=2):
            try:
                rows.append((row["name"], float(row["value"])))
            except (KeyError, TypeError, ValueError):
                print(f"{path}:{line}: expected name,value with a numeric value", file=sys.stderr)
                return 2
    rows.sort(key=lambda r: r[1], reverse=True)
    print("| name | value |")
    print("|---|---:|")
    for name, value in rows:
        print(f"| {name} | {value:g} |")
    print(f"| **total** | **{sum(v for _, v in rows):g}** |")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: render.py <file.csv>", file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
