import { parseSkillMd, serializeSkillMd, type Frontmatter } from "@skillport/core";

const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();

/**
 * How one file is stored: as text when it is UTF-8 without NUL (readable by AgentScope, which reads
 * `resource_content` as text, and storable in a PostgreSQL text column), otherwise as exact bytes with an empty
 * text column. Strict UTF-8 decoding is lossless, so the text form re-encodes to the same bytes.
 */
export function encodeResource(bytes: Uint8Array): { text: string; bytes: Uint8Array | null } {
  if (bytes.includes(0)) return { text: "", bytes };
  try {
    return { text: decoder.decode(bytes), bytes: null };
  } catch {
    return { text: "", bytes };
  }
}

/** The stored file's bytes: the byte column when set, else the text column as UTF-8. */
export function decodeResource(text: string | null | undefined, bytes: Uint8Array | null | undefined): Uint8Array {
  if (bytes !== null && bytes !== undefined) return new Uint8Array(bytes); // a plain copy, not a pooled Buffer view
  return encoder.encode(text ?? "");
}

/** The columns a listing reads: never skill_content. */
export interface MetadataColumns {
  name: string;
  description: string;
  metadata_json: string | null | undefined;
}

/**
 * The frontmatter a row stands for. `metadata_json` holds the whole frontmatter in order (Skillport writes it so, and
 * AgentScope's holds its extra keys); the name and description columns always win, and keep their place when the
 * JSON has them. Legacy rows without metadata_json have name and description only; JSON that is not an object is
 * ignored the same way.
 */
export function frontmatterOf(row: MetadataColumns): Frontmatter {
  let stored: Frontmatter = {};
  if (typeof row.metadata_json === "string" && row.metadata_json !== "") {
    try {
      const parsed: unknown = JSON.parse(row.metadata_json);
      if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) stored = parsed as Frontmatter;
    } catch {
      // Unreadable extras are dropped; name and description still describe the skill.
    }
  }
  const out: Frontmatter = {};
  const put = (key: string, value: Frontmatter[string]) =>
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  if (!("name" in stored)) put("name", row.name);
  if (!("description" in stored)) put("description", row.description);
  for (const [key, value] of Object.entries(stored))
    put(key, key === "name" ? row.name : key === "description" ? row.description : value);
  return out;
}

/**
 * The SKILL.md body a row holds. AgentScope keeps the body in skill_content; some of its tools stored the whole
 * SKILL.md there instead. A skill_content that is itself a SKILL.md naming this very skill is read as one.
 */
export function bodyOf(name: string, skillContent: string): string {
  if (!skillContent.startsWith("---")) return skillContent;
  try {
    const parsed = parseSkillMd(skillContent);
    if (parsed.frontmatter?.name === name) return parsed.body;
  } catch {
    // Not a SKILL.md: the content is the body.
  }
  return skillContent;
}

/** The SKILL.md text for stored columns, exactly as a save serialised it. */
export function skillMdOf(frontmatter: Frontmatter, body: string): Uint8Array {
  return encoder.encode(serializeSkillMd(frontmatter, body));
}

/** JSON that reads back as the same frontmatter (YAML's .inf/.nan and the like do not survive JSON). */
export function frontmatterJson(frontmatter: Frontmatter): string | undefined {
  const json = JSON.stringify(frontmatter);
  return serializeSkillMd(JSON.parse(json) as Frontmatter, "") === serializeSkillMd(frontmatter, "") ? json : undefined;
}
