#!/usr/bin/env python3
"""Print the email addresses found in the input, deduplicated in first-seen order."""
import re
import sys

PATTERN = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}")


def extract(text: str) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    for match in PATTERN.findall(text):
        local, _, domain = match.partition("@")
        key = f"{local}@{domain.lower()}"
        if key not in seen:
            seen.add(key)
            out.append(key)
    return out


if __name__ == "__main__":
    text = " ".join(sys.argv[1:]) if len(sys.argv) > 1 else sys.stdin.read()
    for address in extract(text):
        print(address)
