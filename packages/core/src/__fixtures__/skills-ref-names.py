"""Regenerates skills-ref-names.json: name verdicts computed the way skills-ref computes them, in Python.

The rules below restate skills-ref's name checks (NFKC of the stripped name; code-point length; str.lower();
str.isalnum(); NFKC directory match) so the TypeScript port is compared with Python's own Unicode behaviour.
Run: python3 skills-ref-names.py > skills-ref-names.json
"""
import json
import random
import unicodedata

ALPHABET = (
    list("abcxyz019-") * 10
    + list("_ .")
    + list("ABCZ")
    + list("éüßøÉÜ")
    + list("αβσςΣΩ")
    + list("мойнавыкМОЙ")
    + list("技能数据清洗")
    + list("ｐｄｆＡ０１")           # fullwidth
    + ["e\u0301", "\u0301", "\u093f", "क", "\u0915\u093f"]  # combining marks, Devanagari
    + list("²³½Ⅻⅻ٣")             # superscripts, fractions, Roman numerals, Arabic-Indic digit
    + list("ﬁﬀİı")               # ligatures, Turkish i
    + ["\u00a0", "\u3000", "\u001c", "\t", "\u200d", "\ufeff", "\u2028"]
    + list("😀★→/:@.")
)


def problems(name, dir_name):
    if not name.strip():
        return ["empty"]
    name = unicodedata.normalize("NFKC", name.strip())
    out = []
    if len(name) > 64:
        out.append("too-long")
    if name != name.lower():
        out.append("lowercase")
    if name.startswith("-") or name.endswith("-"):
        out.append("hyphen-edge")
    if "--" in name:
        out.append("consecutive")
    if not all(c.isalnum() or c == "-" for c in name):
        out.append("chars")
    if unicodedata.normalize("NFKC", dir_name) != name:
        out.append("dir")
    return out


def main():
    rng = random.Random(20261130)
    cases = []
    for i in range(600):
        length = rng.choice([0, 1, 2, 3, 5, 8, 12, 20, 63, 64, 65, 70])
        name = "".join(rng.choice(ALPHABET) for _ in range(length))
        pick = rng.random()
        if pick < 0.5:
            dir_name = unicodedata.normalize("NFKC", name.strip())
        elif pick < 0.7:
            dir_name = unicodedata.normalize("NFD", name.strip())
        elif pick < 0.8:
            dir_name = name
        else:
            dir_name = "other"
        cases.append({"name": name, "dir": dir_name, "problems": problems(name, dir_name)})
    print(json.dumps(cases, ensure_ascii=True, separators=(",", ":")))


main()
