/**
 * What a tool's failure says. Plugins throw Error objects, `{message}` objects, i18n `{reason}` failures straight
 * from `ctx.invoke` (the seed's rule "keep the original err"), strings, or anything else. Like FastGPT's getErrText
 * we look for text in a fixed order — message, the i18n reason (with what caused it), the nested error or cause —
 * and fall back to JSON, so no failure ever reads "[object Object]".
 */

/** Nested errors deeper than this are not followed (a cause cycle must not loop). */
const MAX_DEPTH = 5;
/** The longest rendered message; the structured detail keeps the rest. */
const MAX_TEXT = 2000;
/** Largest structured detail (as JSON) carried next to the message. */
const MAX_DETAIL_BYTES = 64 * 1024;

type Bag = Record<string, unknown>;

const isBag = (value: unknown): value is Bag => typeof value === "object" && value !== null;

/** English first (the CLI's language), then Simplified and Traditional Chinese. */
function i18nText(value: unknown): string | undefined {
  if (!isBag(value)) return undefined;
  const text = [value.en, value["zh-CN"], value["zh-Hant"]].find((item) => typeof item === "string" && item !== "");
  return text as string | undefined;
}

function join(...parts: (string | undefined)[]): string | undefined {
  const kept: string[] = [];
  for (const part of parts)
    if (part !== undefined && part !== "" && !kept.some((k) => k === part || k.includes(part))) kept.push(part);
  return kept.length > 0 ? kept.join(": ") : undefined;
}

function textOf(value: unknown, depth: number): string | undefined {
  if (typeof value === "string") return value === "" ? undefined : value;
  if (value === undefined || value === null) return undefined;
  if (!isBag(value)) return String(value);
  if (depth > MAX_DEPTH) return undefined;
  const message = typeof value.message === "string" && value.message !== "" ? value.message : undefined;
  const reason = i18nText(value.reason);
  // An Error's message stands alone; an i18n reason says what failed and its cause says why.
  if (message !== undefined) return reason !== undefined && !(value instanceof Error) ? join(reason, message) : message;
  if (reason !== undefined)
    return join(reason, textOf(value.error, depth + 1), textOf(value.cause, depth + 1)) ?? reason;
  return (
    textOf(value.error, depth + 1) ??
    textOf(value.cause, depth + 1) ??
    (typeof value.msg === "string" ? value.msg : undefined) ??
    i18nText(value)
  );
}

function json(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

/** One line of text for any thrown value. */
export function renderError(error: unknown): string {
  let text = textOf(error, 0);
  if (text === undefined) {
    const encoded = isBag(error) ? json(error) : undefined;
    text =
      encoded !== undefined && encoded !== "{}"
        ? encoded
        : error instanceof Error
          ? error.name
          : "the tool failed without a message";
  }
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text;
}

/**
 * The thrown value as JSON-safe data for `--json` output and the host API (undefined for a plain Error, whose
 * message says it all, and for anything too large or not serialisable).
 */
export function errorDetail(error: unknown, depth = 0): unknown {
  if (!isBag(error) || depth > MAX_DEPTH) return undefined;
  let value: unknown;
  if (error instanceof Error) {
    const own = Object.fromEntries(Object.entries(error).filter(([key]) => key !== "stack"));
    const cause = errorDetail(error.cause, depth + 1) ?? (typeof error.cause === "string" ? error.cause : undefined);
    if (Object.keys(own).length === 0 && cause === undefined) return undefined;
    value = { name: error.name, message: error.message, ...own, ...(cause === undefined ? {} : { cause }) };
  } else {
    value = error;
  }
  const encoded = json(value);
  if (encoded === undefined || Buffer.byteLength(encoded) > MAX_DETAIL_BYTES) return undefined;
  return JSON.parse(encoded) as unknown;
}
