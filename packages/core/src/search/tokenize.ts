import { stemmer } from "stemmer";

/**
 * Search tokens: Unicode words, lowercased after NFKC, with accents folded on Latin, Greek and Cyrillic words,
 * CJK and other scripts written without spaces split into words by `Intl.Segmenter`, English words stemmed (Porter,
 * the `stemmer` package), stopwords removed. Programming names that punctuation would destroy stay whole: `c++`,
 * `c#`, `f#`, `.net` (a dotted name also yields its bare word: `asp.net` → `asp`, `.net`, `net`).
 */

/** Small on purpose: words that say nothing about which skill fits (English, and Chinese function words). */
export const SEARCH_STOPWORDS: ReadonlySet<string> = new Set(
  (
    "a an and are as at be but by can do does for from has have how i if in into is it its me my of on or our should so " +
    "that the their then there these this to use used uses using want was we what when which while who will with you your " +
    "s t please help need 的 了 和 是 在 把 与 或 及 等 我 你 他 她 它 这 那 个 一个 什么 怎么 如何 帮 帮我 请 给 吗 呢 吧"
  ).split(" "),
);

// A word: letters/digits (with combining marks), optionally `++` or a lone `#` right after it (c++, c#), or a
// dotted name of two letters or more (.net, also inside asp.net and node.js).
const WORD = /\.[\p{L}][\p{L}\p{M}\p{N}]+|[\p{L}\p{N}][\p{L}\p{M}\p{N}]*(?:\+\+|#(?![\p{L}\p{N}#]))?/gu;
// Scripts written without spaces between words: segmented with Intl.Segmenter.
const UNSPACED =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
// Words whose accents are folded (résumé → resume); other scripts keep their marks, which carry meaning there.
const FOLDABLE = /^[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{N}\p{M}.+#]+$/u;
const MARKS = /\p{Mn}/gu;
const STEMMABLE = /^[a-z]{3,}$/;

let segmenter: Intl.Segmenter | undefined;
function segment(text: string): string[] {
  segmenter ??= new Intl.Segmenter("zh", { granularity: "word" });
  const words: string[] = [];
  for (const part of segmenter.segment(text)) if (part.isWordLike) words.push(part.segment);
  return words;
}

const stems = new Map<string, string>();
function stem(word: string): string {
  if (!STEMMABLE.test(word)) return word;
  let cached = stems.get(word);
  if (cached === undefined) {
    cached = stemmer(word);
    if (stems.size > 100_000) stems.clear(); // bounded memo: stemming is the hot path of indexing
    stems.set(word, cached);
  }
  return cached;
}

function push(out: string[], raw: string): void {
  let word = raw;
  if (FOLDABLE.test(word)) word = word.normalize("NFD").replace(MARKS, "").normalize("NFC");
  if (word === "" || SEARCH_STOPWORDS.has(word)) return;
  out.push(stem(word));
  if (word.length > 2 && word.startsWith(".")) {
    const bare = word.slice(1);
    if (!SEARCH_STOPWORDS.has(bare)) out.push(stem(bare));
  }
}

/** The search terms of a text, in order (duplicates kept: term frequency counts). */
export function searchTokens(text: string): string[] {
  const out: string[] = [];
  const normal = text.normalize("NFKC").toLowerCase();
  for (const match of normal.matchAll(WORD)) {
    const word = match[0];
    if (UNSPACED.test(word)) {
      for (const part of segment(word)) for (const inner of part.match(WORD) ?? []) push(out, inner);
    } else push(out, word);
  }
  return out;
}
