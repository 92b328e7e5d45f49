#!/usr/bin/env python3
"""Trim cells, drop duplicate rows and normalise dates to ISO 8601 in a CSV file."""
import csv
import re
import sys

PATTERNS = [
    (re.compile(r"^(\d{4})[/.-](\d{1,2})[/.-](\d{1,2})$"), (1, 2, 3)),
    (re.compile(r"^(\d{1,2})\.(\d{1,2})\.(\d{4})$"), (3, 2, 1)),
]


def normalise(cell):
    cell = cell.strip()
    for pattern, (y, m, d) in PATTERNS:
        match = pattern.match(cell)
        if match:
            return f"{match.group(y)}-{int(match.group(m)):02d}-{int(match.group(d)):02d}"
    return cell


def main(source, target):
    seen, kept, dropped = set(), [], 0
    with open(source, newline="", encoding="utf-8") as handle:
        for row in csv.reader(handle):
            cleaned = tuple(normalise(cell) for cell in row)
            if cleaned in seen:
                dropped += 1
                continue
            seen.add(cleaned)
            kept.append(cleaned)
    with open(target, "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(kept)
    print(f"kept {len(kept)} rows, dropped {dropped} duplicates")


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] == sys.argv[2]:
        sys.exit("usage: clean.py INPUT.csv OUTPUT.csv (different files)")
    main(sys.argv[1], sys.argv[2])
