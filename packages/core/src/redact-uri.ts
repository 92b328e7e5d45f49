/**
 * Hiding credentials in addresses before anything prints them. Sources are named by URIs (`postgres://u:pw@h/db`,
 * `git+https://token@host/…`) and those end up in messages, JSON output and qualified ids; the password must not.
 * Pure string rules, so every package (and the CLI's last-resort error printer) applies the same ones.
 */

/** What a hidden credential is replaced with. */
export const REDACTED_CREDENTIAL = "***";

// Query parameters that carry secrets in connection strings and signed URLs.
const SECRET_PARAM =
  /([?&;](?:password|passwd|pwd|pass|secret|token|access_token|api_key|apikey|sslpassword|sslkey|x-amz-signature|sig)=)[^&#\s"'<>]*/gi;
// Schemes whose user name alone is usually a token (`https://<token>@github.com/…`).
const TOKEN_USER_SCHEMES = /^(?:https?|git\+https?|git\+ssh|ssh|npm|ftp)$/i;
const URI_START = /([a-z][a-z0-9+.-]*):\/\//gi;

/**
 * The address with its password (and, for web and git schemes, a bare user name, which is usually a token) replaced
 * by `***`, and secret query parameters hidden. Works on one whole address, even a malformed one: the credentials end
 * at the LAST `@` (WHATWG's rule), so a raw `@`, `/` or `#` inside a password cannot leak its tail.
 */
export function redactUri(address: string): string {
  const match = /^([a-z][a-z0-9+.-]*):\/\//i.exec(address);
  if (!match) return address.replace(SECRET_PARAM, `$1${REDACTED_CREDENTIAL}`);
  const scheme = match[1] ?? "";
  return `${scheme}://${redactAfterScheme(scheme, address.slice(match[0].length))}`;
}

/**
 * Every address inside free text (an error message from a driver, say) redacted as `redactUri` does. An address ends
 * at whitespace (not at a quote: a password may hold one), so a password with a space in it is only safe through
 * `redactUri` on the whole address. Text without addresses is returned unchanged.
 */
export function redactUriCredentials(text: string): string {
  let out = "";
  let last = 0;
  URI_START.lastIndex = 0;
  for (let match = URI_START.exec(text); match; match = URI_START.exec(text)) {
    const start = match.index + match[0].length;
    let end = start;
    while (end < text.length && !/\s/.test(text[end] ?? "")) end++;
    out += text.slice(last, start) + redactAfterScheme(match[1] ?? "", text.slice(start, end));
    last = end;
    URI_START.lastIndex = end;
  }
  return (out + text.slice(last)).replace(SECRET_PARAM, `$1${REDACTED_CREDENTIAL}`);
}

/** `rest` is what follows `scheme://`. */
function redactAfterScheme(scheme: string, rest: string): string {
  const at = rest.lastIndexOf("@");
  let out = rest;
  if (at >= 0) {
    const userinfo = rest.slice(0, at);
    const colon = userinfo.indexOf(":");
    const slash = userinfo.search(/[/?#]/);
    // `host/path@v1` has no credentials: the `@` is in the path. A `:` before any `/` means `user:password`.
    const isUserinfo = slash < 0 || (colon >= 0 && colon < slash);
    if (isUserinfo) {
      const user = colon >= 0 ? userinfo.slice(0, colon) : userinfo;
      const hidden =
        colon >= 0
          ? `${user}:${REDACTED_CREDENTIAL}`
          : TOKEN_USER_SCHEMES.test(scheme) && user !== ""
            ? REDACTED_CREDENTIAL
            : user;
      out = `${hidden}@${rest.slice(at + 1)}`;
    }
  }
  return out.replace(SECRET_PARAM, `$1${REDACTED_CREDENTIAL}`);
}
