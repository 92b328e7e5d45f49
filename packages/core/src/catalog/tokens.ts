import { AgentSkillsError, MissingDependencyError } from "../errors.js";
import { importOptional } from "../optional-module.js";

/** Counts tokens the way a model's tokenizer does; `name` is stated wherever a budget is reported. */
export interface TokenCounter {
  readonly name: string;
  count(text: string): number;
}

/** The fallback when no tokenizer is installed: one token per 4 UTF-16 code units, rounded up. An estimate only. */
export const approximateTokenCounter: TokenCounter = {
  name: "chars/4",
  count: (text) => Math.ceil(text.length / 4),
};

export const TOKEN_ENCODINGS = ["o200k_base", "cl100k_base"] as const;
export type TokenEncoding = (typeof TOKEN_ENCODINGS)[number];

/** No real tokenizer could be loaded (the optional peer `js-tiktoken` is missing: the message says how to add it). */
export class TokenizerUnavailableError extends AgentSkillsError<"TOKENIZER_UNAVAILABLE"> {
  constructor(encoding: string, options?: { cause?: unknown }) {
    const cause = options?.cause;
    const message =
      cause instanceof MissingDependencyError
        ? cause.message
        : `the ${encoding} tokenizer could not be loaded: ${cause instanceof Error ? cause.message : String(cause)}`;
    super(message, { code: "TOKENIZER_UNAVAILABLE", ...options });
  }
}

const loaded = new Map<TokenEncoding, Promise<TokenCounter>>();

/**
 * An exact counter for an OpenAI encoding (`o200k_base`: GPT-4o and later; `cl100k_base`: GPT-4 and GPT-3.5), from
 * the optional peer dependency `js-tiktoken`. Loaded on first use (the rank tables are a few MB) and shared afterwards.
 * Throws TokenizerUnavailableError when js-tiktoken is not installed; callers may fall back to
 * `approximateTokenCounter` and say so.
 */
export function loadTokenCounter(encoding: TokenEncoding): Promise<TokenCounter> {
  if (!TOKEN_ENCODINGS.includes(encoding))
    return Promise.reject(
      new RangeError(`unknown encoding ${JSON.stringify(encoding)}; use one of ${TOKEN_ENCODINGS.join(", ")}`),
    );
  let counter = loaded.get(encoding);
  if (!counter) {
    counter = (async () => {
      try {
        const feature = `the ${encoding} tokenizer`;
        const { Tiktoken } = await importOptional("js-tiktoken", feature, () => import("js-tiktoken/lite"));
        const ranks = await importOptional("js-tiktoken", feature, async () =>
          encoding === "o200k_base"
            ? (await import("js-tiktoken/ranks/o200k_base")).default
            : (await import("js-tiktoken/ranks/cl100k_base")).default,
        );
        const tokenizer = new Tiktoken(ranks);
        // Text that looks like a special token (<|endoftext|>) is counted as plain text, never an error.
        return { name: encoding, count: (text: string) => tokenizer.encode(text, [], []).length };
      } catch (error) {
        loaded.delete(encoding);
        throw new TokenizerUnavailableError(encoding, { cause: error });
      }
    })();
    loaded.set(encoding, counter);
  }
  return counter;
}
