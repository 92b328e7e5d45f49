import { AgentSkillsError } from "@skillport/core";
import { REDACTED_CREDENTIAL, redactUriCredentials } from "@skillport/core/internal";

export type RemoteSourceErrorCode =
  "REMOTE_CONFIG" | "REMOTE_FETCH" | "REMOTE_INTEGRITY" | "REMOTE_REFUSED" | "REMOTE_ACCESS_DENIED";

/**
 * A remote source problem that is not a plain outage: a bad address or option (`REMOTE_CONFIG`), a download or git
 * command that failed (`REMOTE_FETCH`), bytes that do not match their advertised digest or size (`REMOTE_INTEGRITY`),
 * something the source refuses on principle, such as a redirect to another host (`REMOTE_REFUSED`), or the remote
 * refusing these credentials (HTTP 401/403, a git authentication failure: `REMOTE_ACCESS_DENIED`; the copy made with
 * them is no longer served, decision 0240). Messages never hold a credential.
 */
export class RemoteSourceError extends AgentSkillsError<RemoteSourceErrorCode> {
  constructor(message: string, code: RemoteSourceErrorCode, options?: { cause?: unknown }) {
    super(message, { code, ...options });
  }
}

/** Text from a tool or server made safe to show: addresses redacted, the given secrets removed, one line. */
export function safeText(text: string, secrets: readonly string[] = []): string {
  let out = redactUriCredentials(text);
  for (const secret of secrets) {
    // Very short values would shred every message; the address rule still hides them inside URLs.
    if (secret.length >= 4 && out.includes(secret)) out = out.split(secret).join(REDACTED_CREDENTIAL);
  }
  return out.replace(/\s+/g, " ").trim();
}
