#!/usr/bin/env bash
# Line, word and character counts plus the five most frequent words of one file.
set -euo pipefail
if [ "$#" -ne 1 ] || [ ! -f "$1" ]; then
  echo "usage: stats.sh <file>" >&2
  exit 2
fi
printf 'lines %s\nwords %s\nchars %s\n' "$(wc -l < "$1" | tr -d ' ')" "$(wc -w < "$1" | tr -d ' ')" "$(wc -m < "$1" | tr -d ' ')"
echo "top words:"
tr -cs '[:alnum:]' '\n' < "$1" | tr '[:upper:]' '[:lower:]' | grep -v '^$' | sort | uniq -c | sort -k1,1nr -k2 | head -5
