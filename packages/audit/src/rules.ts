import type { FindingLevel } from "./types.js";
import {
  hostOf,
  isChatWebhook,
  isCollectorHost,
  isKnownInstaller,
  isPublicIpv4,
  isTunnelHost,
  METADATA_HOST,
  URL_PATTERN,
} from "./hosts.js";

/** Which files a rule reads: instructions (Markdown and text), scripts and data (every other text file), or both. */
export type RuleScope = "instructions" | "scripts" | "text";

/** What a refinement decides for one hit: keep (maybe at another level or under another code) or drop. */
type Refined = { level?: FindingLevel; code?: string } | null;

export interface PatternRule {
  code: string;
  level: FindingLevel;
  /** One line: what this rule saw. */
  message: string;
  /** One line: what to do instead. */
  fix: string;
  scope: RuleScope;
  /** Global regular expressions; each hit is one finding (one per rule per line). */
  patterns: RegExp[];
  /** Looks at the hit and its whole line; may change the level or code, or drop the hit. */
  refine?: (hit: string, line: string) => Refined;
  /** Never lowered under a "do not do this" heading (hidden content is never an example). */
  keepInCaution?: boolean;
  /**
   * Lower-case words one of which every hit contains: the patterns run only on a text that holds one (a substring
   * search is far cheaper than a case-insensitive regular expression over a whole file).
   */
  hint: readonly string[];
}

/** Rules that are not patterns (decoders, byte magic, frontmatter checks): documented here so the table is whole. */
export interface RuleInfo {
  code: string;
  level: FindingLevel;
  message: string;
  fix: string;
}

const SHELLS = String.raw`(?:sudo\s+)?(?:-\s*)?(?:ba|z|da|k|fi)?sh|python[0-9.]*|perl|ruby|node|pwsh|powershell|iex|invoke-expression`;
const FETCHERS = String.raw`curl|wget|fetch|aria2c|iwr|irm|invoke-webrequest|invoke-restmethod`;

/** The URL hosts on a line. */
function hostsOn(line: string): { url: string; host: string }[] {
  URL_PATTERN.lastIndex = 0;
  return [...line.matchAll(URL_PATTERN)].map((m) => ({ url: m[0], host: hostOf(m[0]) }));
}

const riskyHost = (host: string) => isPublicIpv4(host) || isTunnelHost(host) || isCollectorHost(host);

// A piped install from a raw IP or a tunnel is the campaign's own shape; from a vendor's documented installer it is
// an ordinary (if unwise) install, kept visible at `review`.
function refineRemoteRecipe(hit: string, line: string): Refined {
  if (
    /\|\s*(?:python[0-9.]*|node|ruby|perl|pwsh|powershell)\b/i.test(hit) &&
    /\|\s*(?:python[0-9.]*|node|ruby|perl|pwsh|powershell)\s+-(?:c|e|m|E|Command)\b/i.test(line)
  )
    return null;
  const hosts = hostsOn(line);
  if (hosts.some((h) => riskyHost(h.host))) return { code: "malicious.install_terminal_payload", level: "malicious" };
  if (hosts.length > 0 && hosts.every((h) => isKnownInstaller(h.url))) return { level: "review" };
  return {};
}

// No optional prefix (`~/`, `$HOME/`): a pattern that may start anywhere costs a try at every position.
const CREDENTIAL_PATH = String.raw`\.ssh\/(?:id_\w+|authorized_keys|config|\*)|\bid_(?:rsa|dsa|ecdsa|ed25519)\b(?!\.pub)|\.aws\/(?:credentials|config)|\.kube\/config|\.docker\/config\.json|\.netrc\b|\.git-credentials|\.config\/gh\/hosts\.yml|\.npmrc\b|\.pypirc\b|\.config\/gcloud\/|\.azure\/|login\.keychain|Library\/Keychains|\bsecurity\s+(?:find-(?:generic|internet)-password|dump-keychain)|Login(?:\\)?\s?Data|Local(?:\\)?\s?State|(?:Chrome|Chromium|Brave|Edge|Firefox)[^\n]{0,80}\/Cookies\b|\bcookies\.sqlite\b|\blogins\.json\b|\bkey[34]\.db\b|\bwallet\.dat\b|\bkeystore\/|Exodus\/|Electrum\/|\bseed phrase\b|\bmnemonic\b|\/etc\/shadow\b`;
export const CREDENTIAL = new RegExp(CREDENTIAL_PATH, "i");
const READ_VERB =
  /\b(?:cat|cp|scp|rsync|tar|zip|base64|xxd|less|more|head|tail|type|get-content|gc|read|open|upload|send|copy|collect|extract|exfiltrat\w*|grab|dump|strings|sqlite3)\b/i;
const SENDER = new RegExp(
  String.raw`\b(?:${FETCHERS}|nc|ncat|netcat|socat|scp|rsync|ftp|requests\.(?:post|put)|axios\.post|http\.request|urllib\.request|sendmail|mail)\b|fetch\s*\(`,
  "i",
);
const ENV_DUMP =
  /\$\((?:env|printenv|set)\)|`(?:env|printenv)`|\b(?:env|printenv)\s*\||JSON\.stringify\(\s*process\.env\s*\)|json\.dumps\(\s*(?:dict\()?os\.environ|Get-ChildItem\s+env:/i;

export const PATTERN_RULES: readonly PatternRule[] = [
  {
    code: "suspicious.remote_recipe_execution",
    hint: ["curl", "wget", "fetch", "aria2c", "iwr", "irm", "invoke-", "downloadstring", "urlopen"],
    level: "warn",
    message: "downloads a script and pipes it straight into an interpreter",
    fix: "pin a released, checksummed artifact (or a package with a version) and let the user install it",
    scope: "text",
    patterns: [
      new RegExp(String.raw`\b(?:${FETCHERS})\b[^\n|]{0,300}\|\s*(?:${SHELLS})\b`, "gi"),
      new RegExp(String.raw`\b(?:ba|z|da)?sh\s+(?:-c\s+)?["']?(?:\$\(|<\()\s*(?:curl|wget)\b`, "gi"),
      /\b(?:iex|invoke-expression)\s*\(?\s*(?:\(?\s*(?:iwr|irm|invoke-webrequest|invoke-restmethod|new-object\s+net\.webclient))/gi,
      /\.downloadstring\s*\([^\n]{0,200}\)\s*\|?\s*(?:iex|invoke-expression)?/gi,
      /\bpython[0-9.]*\s+-c\s+["'][^\n]{0,200}(?:\burlopen\b[^\n]{0,200}\b(?:exec|eval)\b|\b(?:exec|eval)\b[^\n]{0,200}\burlopen\b)/gi,
    ],
    refine: refineRemoteRecipe,
  },
  {
    code: "malicious.install_terminal_payload",
    hint: ["base64", "openssl", "xxd", "certutil", "powershell", "rev"],
    level: "malicious",
    message: "decodes an inline blob and runs it in a shell",
    fix: "remove it: an installer must be readable where it is run",
    scope: "text",
    patterns: [
      new RegExp(
        String.raw`\b(?:base64\s+(?:-d|-D|--decode)|openssl\s+(?:base64|enc)\s+-d|xxd\s+-r(?:\s+-p)?|certutil\s+-decode)\b[^\n]{0,80}\|\s*(?:${SHELLS})\b`,
        "gi",
      ),
      /\bpowershell(?:\.exe)?\b[^\n]{0,60}\s-(?:e|en|enc|encodedcommand)\s+[A-Za-z0-9+/=]{16,}/gi,
      /\|\s*rev\s*\|\s*(?:ba|z)?sh\b/gi,
    ],
    keepInCaution: true,
  },
  {
    code: "malicious.reverse_shell",
    hint: ["/dev/tcp", "/dev/udp", "nc ", "ncat", "netcat", "socat", "bash -i"],
    level: "malicious",
    message: "opens a shell for a remote host (reverse shell)",
    fix: "remove it; a skill never hands a shell to a network peer",
    scope: "text",
    patterns: [
      /\/dev\/(?:tcp|udp)\/[^\s/]+\/\d+/gi,
      /\b(?:nc|ncat|netcat)\b[^\n]{0,60}\s-(?:e|c)\s+\S*(?:sh|cmd(?:\.exe)?)\b/gi,
      /\bsocat\b[^\n]{0,80}\bexec:[^\n]{0,20}(?:sh|bash)\b/gi,
      /\bbash\s+-i\s+>&/gi,
    ],
  },
  {
    code: "suspicious.download_and_execute",
    hint: [
      "curl",
      "wget",
      "fetch",
      "aria2c",
      "iwr",
      "irm",
      "invoke-",
      "chmod",
      "and run",
      "then run",
      "and execute",
      "then execute",
      "and launch",
      "then launch",
      "and open",
      "then open",
      "double-click",
    ],
    level: "warn",
    message: "downloads a program and runs it",
    fix: "ship the tool as a pinned package or a checksummed release the user installs, not a download-and-run step",
    scope: "text",
    patterns: [
      new RegExp(
        String.raw`\b(?:${FETCHERS})\b[^\n]{0,200}(?:\s-o\s*|\s-O\s+|--output(?:=|\s+)|-OutFile\s+)\S+[^\n]{0,120}(?:&&|;)\s*(?:sudo\s+)?(?:chmod\s+\+?[0-7x]+|\.\/|start-process|open\s|msiexec|hdiutil)`,
        "gi",
      ),
      /\bchmod\s+(?:\+x|[0-7]?[0-7][0-7][1357])\s+\S+\s*(?:&&|;)\s*(?:sudo\s+)?\.\/\S+/gi,
      /\b(?:download|get|grab|fetch)\b(?:[^\n.]|\.(?=\S)){0,160}\b(?:and|then)\s+(?:run|execute|launch|open|double-click)\b[^\n.]{0,60}/gi,
    ],
    refine: (hit, line) => {
      // Prose "download … and run" names a program file or a risky host before it is more than worth a look.
      if (
        /^(?:download|get|grab|fetch)\b/i.test(hit) &&
        !/\.(?:exe|msi|dmg|pkg|appimage|bin|zip|7z|rar|sh|ps1|bat|cmd|scr|jar)\b/i.test(line) &&
        !hostsOn(line).some((h) => riskyHost(h.host))
      )
        return { level: "review" };
      return {};
    },
  },
  {
    code: "suspicious.terminal_paste_prompt",
    hint: ["terminal", "your shell", "the shell", "a shell", "command line", "console", "powershell", "cmd"],
    level: "review",
    message: "asks the user to paste a command into a terminal",
    fix: "describe what the command does and let the agent run it through its own (approved) tools",
    scope: "instructions",
    patterns: [
      /\b(?:copy\s+and\s+paste|paste|run|execute|type|enter)\b[^\n.]{0,60}\b(?:in(?:to)?|on)\s+(?:your|the|a)\s+(?:terminal|shell|command\s+line|console|powershell|cmd)\b[^\n]{0,80}/gi,
    ],
    // The campaign's framing: a "prerequisite" the user must run before the skill works.
    refine: (_hit, line) =>
      /\b(?:first|before\s+(?:using|installing|continuing|you)|prerequisites?)\b/i.test(line) ? { level: "warn" } : {},
  },
  {
    code: "suspicious.unpinned_package_runner",
    hint: ["npx", "bunx", "dlx", "uvx", "pipx", "uv", "pip"],
    level: "review",
    message: "runs a package without a pinned version (whatever is published next runs)",
    fix: "pin the version (npx pkg@1.2.3, uvx pkg==1.2.3, pip install pkg==1.2.3)",
    scope: "text",
    patterns: [
      /\b(?:npx|bunx|pnpm\s+dlx|yarn\s+dlx)\s+(?:(?:-y|--yes|-q|--quiet|--package(?:=|\s+)\S+|-p\s+\S+)\s+)*(@?[a-z0-9][\w.-]*(?:\/[\w.-]+)?(?:@[^\s]+)?)/gi,
      /\b(?:uvx|pipx\s+run|uv\s+tool\s+run)\s+(?:--?[\w-]+(?:\s+\S+)?\s+)*?([a-z0-9][\w.\-[\]]*(?:[=@<>~!]=?[^\s]+)?)/gi,
      /\bpip3?\s+install\s+(?:(?:-U|--upgrade|--user|-q|--quiet|--break-system-packages|--no-cache-dir)\s+)*([a-z0-9][\w.\-[\]]*(?:[=<>~!]=?[^\s]+)?)/gi,
    ],
    refine: (hit) => {
      const spec = /(\S+)$/.exec(hit.trim())?.[1] ?? "";
      // Pinned: `pkg@1.2.3`, `@scope/pkg@1.2.3`, `pkg==1.2.3`; local paths and requirement files are not runners.
      if (/(?:^@?[^@\s]+@[v^~]?\d|==|~=)/.test(spec) || /^(?:-|\.|\/|requirements)/.test(spec)) return null;
      if (/^(?:install|create|init|run|exec|i|add|upgrade)$/i.test(spec)) return null;
      return {};
    },
  },
  {
    code: "suspicious.credential_store_access",
    hint: [
      ".ssh/",
      "id_rsa",
      "id_dsa",
      "id_ecdsa",
      "id_ed25519",
      ".aws/",
      ".kube/",
      ".docker/config",
      ".netrc",
      ".git-credentials",
      "gh/hosts",
      ".npmrc",
      ".pypirc",
      "gcloud/",
      ".azure/",
      "keychain",
      "find-generic",
      "find-internet",
      "login data",
      "logindata",
      "login\\ data",
      "local state",
      "localstate",
      "local\\ state",
      "/cookies",
      "cookies.sqlite",
      "logins.json",
      "key3.db",
      "key4.db",
      "wallet.dat",
      "keystore/",
      "exodus/",
      "electrum/",
      "seed phrase",
      "mnemonic",
      "/etc/shadow",
    ],
    level: "review",
    message: "refers to a credential store (SSH keys, cloud credentials, keychains, browser profiles, wallets)",
    fix: "do not read credential stores; ask the user for the one value needed, through the agent's secret mechanism",
    scope: "text",
    patterns: [new RegExp(CREDENTIAL_PATH, "gi")],
    // A mention is worth a look; reading or copying one is a warning.
    refine: (_hit, line) => (READ_VERB.test(line) ? { level: "warn" } : {}),
  },
  {
    code: "suspicious.cloud_metadata_access",
    hint: ["169.254.169.254", "metadata.google", "100.100.100.200"],
    level: "warn",
    message: "reaches a cloud instance-metadata endpoint (instance credentials)",
    fix: "remove it; a skill has no business with the host's instance credentials",
    scope: "text",
    patterns: [/\b(?:169\.254\.169\.254|metadata\.google\.internal|100\.100\.100\.200)\b/gi],
    refine: (_hit, line) => (SENDER.test(line) ? {} : { level: "review" }),
  },
  {
    code: "suspicious.env_credential_access",
    hint: ["printenv", "process.env", "os.environ", "env:", ".env"],
    level: "review",
    message: "reads the whole environment or secret-bearing files (tokens, .env)",
    fix: "read only the one named variable the skill documents",
    scope: "text",
    patterns: [
      /\bprintenv\b(?!\s+[A-Z_][A-Z0-9_]*)/g,
      /(?:JSON\.stringify\(\s*process\.env\s*\)|json\.dumps\(\s*(?:dict\()?os\.environ|print\(\s*os\.environ\s*\)|Get-ChildItem\s+env:)/gi,
      /\b(?:cat|type|get-content|less|more|source)\s+(?![^\n|;]{0,40}>)[^\n|;]{0,40}(?:^|[\s/])\.env(?:\.\w+)?\b/gim,
    ],
    refine: (_hit, line) => (SENDER.test(line) || /(?<![>&2])>\s*[\w~$/."']/.test(line) ? { level: "warn" } : {}),
  },
  {
    code: "malicious.credential_exfiltration",
    hint: [
      "curl",
      "wget",
      "fetch",
      "aria2c",
      "iwr",
      "irm",
      "invoke-",
      "nc ",
      "ncat",
      "netcat",
      "socat",
      "scp",
      "rsync",
      "ftp",
      "requests.",
      "axios.",
      "http.request",
      "urllib",
      "mail",
    ],
    level: "malicious",
    message: "sends credentials or the environment to a network destination",
    fix: "remove it",
    scope: "text",
    patterns: [new RegExp(SENDER.source, "gi")],
    refine: (_hit, line) =>
      SENDER.test(line) &&
      (CREDENTIAL.test(line) || ENV_DUMP.test(line)) &&
      (/\S+@\S|\$\(|`|\|/.test(line) || READ_VERB.test(line))
        ? {}
        : null,
    keepInCaution: true,
  },
  {
    code: "suspicious.exfiltration_endpoint",
    hint: ["://", "oast", "interact.sh", "burpcollaborator", "oastify", "dnslog", "ceye"],
    level: "warn",
    message: "names a request bin, paste site, file drop or out-of-band collector",
    fix: "send data only to the service the skill is about, and say so in the description",
    scope: "text",
    patterns: [
      URL_PATTERN,
      /\b(?:oast\.(?:fun|pro|live|site|online|me)|interact\.sh|burpcollaborator\.net|oastify\.com|dnslog\.cn|ceye\.io)\b/gi,
    ],
    refine: (hit) => {
      if (!/:\/\//.test(hit)) return {};
      if (isCollectorHost(hostOf(hit))) return {};
      return isChatWebhook(hit) ? { level: "review" } : null;
    },
  },
  {
    code: "suspicious.tunnel_endpoint",
    hint: [
      "ngrok",
      "trycloudflare",
      "loca.lt",
      "localtunnel",
      "serveo",
      "localhost.run",
      "lhr.life",
      "pinggy",
      "bore.pub",
      "tunnelmole",
      "playit.gg",
      "telebit",
    ],
    level: "warn",
    message:
      "points at a tunnel service address (ngrok, trycloudflare, localtunnel…): an unvetted host that changes hands",
    fix: "use the service's stable, documented address",
    scope: "text",
    patterns: [
      URL_PATTERN,
      /\b(?:ngrok(?:-free)?\.(?:io|app|dev)|trycloudflare\.com|loca\.lt|serveo\.net|lhr\.life|bore\.pub)\b/gi,
    ],
    refine: (hit) => (isTunnelHost(/:\/\//.test(hit) ? hostOf(hit) : hit.toLowerCase()) ? {} : null),
  },
  {
    code: "suspicious.raw_ip_url",
    hint: ["://"],
    level: "warn",
    message: "uses a URL with a public raw IP address instead of a host name",
    fix: "use the service's host name over https",
    scope: "text",
    patterns: [URL_PATTERN],
    refine: (hit) => (isPublicIpv4(hostOf(hit)) && !METADATA_HOST.test(hostOf(hit)) ? {} : null),
  },
  {
    code: "suspicious.data_upload",
    hint: ["curl", "wget", "infile"],
    level: "review",
    message: "uploads a local file to a URL",
    fix: "name the destination and what is sent in the description, and ask the user first",
    scope: "text",
    patterns: [
      /\bcurl\b[^\n]{0,200}(?:\s-d|\s--data(?:-binary|-raw|-urlencode)?|\s-F|\s--form|\s-T|\s--upload-file)\s*(?:=\s*)?["']?[\w-]*=?@[^\s"']+/gi,
      /\bcurl\b[^\n]{0,200}(?:\s-T|\s--upload-file)\s+\S+/gi,
      /\bwget\b[^\n]{0,200}--post-file/gi,
      /\b(?:invoke-restmethod|invoke-webrequest|irm|iwr)\b[^\n]{0,200}-InFile\b/gi,
    ],
  },
  {
    code: "suspicious.dns_exfiltration",
    hint: ["dig", "nslookup", "host", "ping", "drill"],
    level: "warn",
    message: "puts command output or a variable into a DNS name (DNS exfiltration)",
    fix: "remove it",
    scope: "text",
    // The queried name itself holds a substitution: `nslookup $(whoami).x.example`, `dig ${TOKEN}.x.example`.
    patterns: [
      /\b(?:dig|nslookup|host|ping|drill)\s+(?:-\S+\s+)*(?:[\w.-]*(?:\$\([^)\n]{1,80}\)|`[^`\n]{1,80}`|\$\{?[A-Za-z_]\w*\}?))+[\w.-]*\.[a-z][\w.-]*/g,
    ],
  },
  {
    code: "suspicious.prompt_injection_instructions",
    hint: [
      "ignore",
      "disregard",
      "forget",
      "override",
      "bypass",
      "no longer",
      "dan mode",
      "developer mode",
      "jailbreak",
      "other skill",
    ],
    level: "warn",
    message: "tells the agent to drop its instructions or take on a new identity (prompt injection)",
    fix: "state what the skill does; never address the agent's other instructions",
    scope: "text",
    patterns: [
      /\b(?:ignore|disregard|forget|override|bypass)\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+|your\s+|these\s+)?(?:previous|prior|above|earlier|preceding|other|system|original|safety|developer)\s+(?:instructions|prompts?|rules|directives|guidelines|messages|guardrails|policies)/gi,
      /\byou\s+are\s+no\s+longer\b[^\n]{0,80}/gi,
      /\b(?:DAN\s+mode|developer\s+mode\s+enabled|jailbreak\s+mode)\b/gi,
      /\b(?:other|all other)\s+skills?\s+(?:must|should)\s+(?:be\s+ignored|not\s+be\s+used)/gi,
    ],
  },
  {
    code: "suspicious.conceal_from_user",
    hint: ["user", "silently"],
    level: "warn",
    message: "tells the agent to hide what it does from the user",
    fix: "a skill's actions must be visible to the user; remove the concealment",
    scope: "text",
    patterns: [
      /\b(?:do\s+not|don'?t|never|without)\s+(?:tell(?:ing)?|inform(?:ing)?|mention(?:ing)?|reveal(?:ing)?|notify(?:ing)?|alert(?:ing)?|disclos(?:e|ing))\s+(?:this\s+|it\s+|anything\s+)?(?:to\s+)?(?:the\s+)?user\b/gi,
      /\b(?:hide|conceal|keep)\s+(?:this|it|these\s+\w+|the\s+\w+)\s+(?:secret\s+)?from\s+the\s+user\b/gi,
      /\bsilently\s+(?:send|upload|post|run|execute|install|download|copy|forward|exfiltrat\w*)\b/gi,
    ],
  },
  {
    code: "suspicious.fake_system_prompt",
    hint: [
      "<|",
      "system:",
      "system]",
      "system**",
      "system prompt",
      "system override",
      "system message",
      "admin",
      "developer message",
      "system-reminder",
      "system_prompt",
      "system-prompt",
      "begin system",
      "begin developer",
    ],
    refine: (hit) =>
      /^<\/?(?:system-reminder|system_prompt|system-prompt)>$/i.test(hit.trim()) ? { level: "review" } : {},
    level: "warn",
    message: "imitates a system or developer message to gain authority",
    fix: "remove role markers; a skill is user-level content",
    scope: "text",
    patterns: [
      /<\|im_start\|>\s*(?:system|developer)|<\|(?:system|start_header_id)\|>/gi,
      /^\s*(?:\[|\*\*|#+\s*)?(?:SYSTEM(?:\s+PROMPT|\s+OVERRIDE|\s+MESSAGE)?|ADMIN(?:ISTRATOR)?\s+OVERRIDE|DEVELOPER\s+MESSAGE)(?:\]|\*\*)?\s*:/gm,
      /<\/?(?:system-reminder|system_prompt|system-prompt|admin-instructions)>/gi,
      /\bBEGIN\s+(?:SYSTEM|DEVELOPER)\s+(?:PROMPT|INSTRUCTIONS)\b/gi,
    ],
  },
  {
    code: "suspicious.agent_config_tampering",
    hint: [
      ".claude/",
      ".codex/",
      ".cursor/",
      ".gemini/",
      ".agents/",
      ".openclaw/",
      ".clawdbot/",
      ".windsurf/",
      "other skill",
      "installed skill",
      "claude.md",
      "agents.md",
      "gemini.md",
    ],
    refine: (hit) => (/(?:CLAUDE|AGENTS|GEMINI)\.md$/i.test(hit) ? { level: "review" } : {}),
    level: "warn",
    message: "changes other skills or the agent's own settings, hooks or memory files",
    fix: "a skill changes only its own files; document configuration the user makes",
    scope: "text",
    patterns: [
      /(?:>>?|\btee\b|\bcp\b|\bmv\b|\bln\b|\bwrite\b|\bedit\b|\bmodify\b|\boverwrite\b|\bappend\b|\breplace\b|\bdelete\b|\brm\b)[^\n]{0,60}\.(?:claude|codex|cursor|gemini|agents|openclaw|clawdbot|windsurf)\/(?:settings(?:\.local)?\.json|skills\/\*|hooks|config\.toml|mcp\.json)/gi,
      /\b(?:edit|modify|overwrite|delete|disable|rewrite)\s+(?:the\s+)?(?:other|all\s+other|every\s+other|installed)\s+skills?\b/gi,
      /\b(?:append|add|write|insert)\b[^\n]{0,40}\bto\s+(?:the\s+user'?s\s+)?(?:CLAUDE|AGENTS|GEMINI)\.md\b/gi,
    ],
  },
  {
    code: "suspicious.obfuscated_code",
    hint: ["eval", "exec", "function", "fromcharcode"],
    level: "warn",
    message: "decodes and evaluates code at run time (obfuscation)",
    fix: "ship readable source; never eval decoded strings",
    scope: "text",
    patterns: [
      /\beval\s*\(\s*(?:atob|Buffer\.from|unescape|decodeURIComponent|String\.fromCharCode|base64)/gi,
      /\b(?:exec|eval)\s*\(\s*(?:base64\.b64decode|codecs\.decode|zlib\.decompress|bytes\.fromhex|marshal\.loads|__import__\(\s*["'](?:base64|zlib|marshal))/gi,
      /\b(?:new\s+)?Function\s*\(\s*(?:atob|Buffer\.from)/gi,
      /String\.fromCharCode\((?:\s*\d+\s*,){15,}/gi,
      /\beval\s+"?\$\(\s*(?:echo|printf)[^\n]{0,200}(?:base64|xxd)/gi,
    ],
  },
  {
    code: "suspicious.destructive_command",
    hint: ["rm -", "mkfs", "dd ", "chmod -r", ":()", "format "],
    level: "warn",
    message: "runs a command that destroys the home directory, the system or a disk",
    fix: "remove it; scope deletions to the skill's own working folder",
    scope: "text",
    patterns: [
      /\brm\s+-(?:[a-z]*r[a-z]*f|[a-z]*f[a-z]*r)[a-z]*\s+(?:--no-preserve-root\s+)?["']?(?:~\/?\*?|\$HOME\/?\*?|\/\*?)["']?(?=\s|$|;|&)/gim,
      /\bmkfs(?:\.\w+)?\s+\/dev\//gi,
      /\bdd\s+[^\n]{0,60}\bof=\/dev\/(?:sd|nvme|disk|hd|mmcblk)/gi,
      /:\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:/g,
      /\bchmod\s+-R\s+777\s+\/(?=\s|$)/gim,
      /\bformat\s+[a-z]:\s*\/[qy]/gi,
    ],
  },
  {
    code: "suspicious.persistence_mechanism",
    hint: [
      "crontab",
      "@reboot",
      "/etc/cron",
      "/var/spool/cron",
      "launchagents",
      "launchdaemons",
      "launchctl",
      "currentversion",
      "schtasks",
      "start menu",
      "systemctl",
      "systemd",
      "git/hooks",
      "hookspath",
    ],
    level: "warn",
    message: "installs something that runs again later on its own (cron, launch agents, services, Run keys)",
    fix: "let the user schedule recurring work; a skill runs when it is invoked",
    scope: "text",
    patterns: [
      /\|\s*crontab\s+-(?=\s|$)|\bcrontab\s+-l\b[^\n]{0,120}\|\s*crontab\b|@reboot\b|\/etc\/cron(?:tab|\.d)|\/var\/spool\/cron/gim,
      /Library\/Launch(?:Agents|Daemons)|\blaunchctl\s+(?:load|bootstrap|submit)\b/gi,
      /CurrentVersion\\{1,2}Run(?:Once)?\b|\bschtasks(?:\.exe)?\s+\/create\b|Start Menu\\{1,2}Programs\\{1,2}Startup/gi,
      /\bsystemctl\s+(?:--user\s+)?enable\b|\.config\/systemd\/user\/|\/etc\/systemd\/system\/[^\s]+\.service/gi,
      /\.git\/hooks\/\w|\bcore\.hooksPath\b/gi,
    ],
    // Services and git hooks have honest uses (a deploy skill, a pre-commit skill): worth a look, not an alarm.
    refine: (hit, line) => {
      if (/systemctl|systemd|\.git\/hooks|hooksPath/i.test(hit)) return { level: "review" };
      if (
        /LaunchAgents|LaunchDaemons|CurrentVersion|Startup/i.test(hit) &&
        !/\b(?:cp|mv|ln|tee|install|reg\s+add|New-ItemProperty|Set-ItemProperty|launchctl|copy|write)\b|>/i.test(line)
      )
        return { level: "review" };
      return {};
    },
  },
  {
    code: "suspicious.shell_profile_change",
    hint: ["bashrc", "zshrc", "profile", "zshenv", "config.fish"],
    level: "review",
    message: "edits a shell start-up file, which runs in every future shell",
    fix: "tell the user what to add instead of appending to their profile",
    scope: "text",
    patterns: [
      /(?:>>|\btee\s+-a)\s*["']?(?:~|\$HOME|\$\{HOME\})?\/?\.(?:bashrc|zshrc|profile|bash_profile|zprofile|zshenv|config\/fish\/config\.fish)\b/gi,
      /(?:>>|Add-Content|Set-Content)\s*\$PROFILE\b/gi,
    ],
  },
  {
    code: "suspicious.security_disable",
    hint: [
      "xattr",
      "spctl",
      "csrutil",
      "setenforce",
      "ufw",
      "netsh",
      "mppreference",
      "antivirus",
      "anti-virus",
      "defender",
      "firewall",
      "gatekeeper",
      "edr",
      "xprotect",
    ],
    refine: (hit) =>
      /^xattr\b/i.test(hit) && /com\.apple\.quarantine/.test(hit) && !/\s-\w*c/.test(hit) ? { level: "review" } : {},
    level: "warn",
    message: "turns off an operating-system protection (quarantine, Gatekeeper, antivirus, SELinux, firewall)",
    fix: "remove it; a legitimate tool is signed or installed through the system's package manager",
    scope: "text",
    patterns: [
      /\bxattr\s+(?:-[a-z]*\s+)*-(?:c|d|r|rd|dr|cr)\b[^\n]{0,80}/gi,
      /\bspctl\s+--master-disable\b|\bcsrutil\s+disable\b|\bsetenforce\s+0\b|\bufw\s+disable\b|\bnetsh\s+advfirewall\s+set\s+\w+\s+state\s+off\b/gi,
      /\b(?:Set|Add)-MpPreference\b[^\n]{0,80}(?:-Disable\w+|-Exclusion\w+)/gi,
      /\b(?:disable|turn\s+off|deactivate|whitelist\s+in)\s+(?:your\s+|the\s+)?(?:antivirus|anti-virus|windows\s+defender|defender|firewall|gatekeeper|edr|xprotect)\b/gi,
    ],
  },
  {
    code: "suspicious.encrypted_archive",
    hint: ["unzip", "7z", "unrar", "password", "passcode"],
    level: "warn",
    message: "tells the user to open a password-protected archive (a way around malware scanners)",
    fix: "ship files in the skill or as a pinned package; never as a password-protected download",
    scope: "text",
    patterns: [
      /\bunzip\b[^\n]{0,40}\s-P\s*\S+|\b(?:7za?|unrar)\b[^\n]{0,40}\s-p\S+/g,
      /\b(?:extract|unzip|unpack|open)\b[^\n]{0,40}\b(?:password|passcode)\b\s*(?:is\s*)?[:=]?\s*\S+/gi,
      /\b(?:zip|archive|rar|7z|7-zip)\b[^\n]{0,60}\b(?:password|passcode|pass)\b\s*(?:is\s*)?[:=]?\s*\S+/gi,
      /\b(?:password|passcode)\b[^\n]{0,30}\b(?:to\s+)?(?:extract|unzip|unpack|open\s+the\s+(?:zip|archive))\b/gi,
    ],
  },
];

/** The rules that are code, not a pattern table, with their defaults (the audit functions use these texts). */
export const OTHER_RULES = {
  encodedPayload: {
    code: "malicious.install_terminal_payload",
    level: "malicious",
    message: "an encoded blob decodes to a download-and-run command",
    fix: "remove it: an installer must be readable where it is run",
  },
  encodedCommand: {
    code: "suspicious.encoded_command",
    level: "warn",
    message: "an encoded blob decodes to a shell command",
    fix: "write the command in clear text so the user can read it",
  },
  hiddenTags: {
    code: "malicious.hidden_unicode_tags",
    level: "malicious",
    message:
      "holds invisible Unicode tag characters (U+E0000–E007F), which smuggle text a model reads and a person does not",
    fix: "remove the tag characters",
  },
  invisible: {
    code: "suspicious.invisible_characters",
    level: "warn",
    message: "holds zero-width or bidirectional control characters that hide or reorder text",
    fix: "remove them (a right-to-left language needs none of the override or isolate controls)",
  },
  hiddenHtml: {
    code: "suspicious.hidden_html_instructions",
    level: "warn",
    message: "an HTML comment or hidden element holds commands or instructions the rendered page does not show",
    fix: "put instructions in visible text, or remove them",
  },
  minified: {
    code: "suspicious.minified_script",
    level: "review",
    message: "a script is minified or packed, so it cannot be reviewed",
    fix: "ship the readable source (a build step may minify at install)",
  },
  executable: {
    code: "suspicious.bundled_executable",
    level: "warn",
    message: "bundles a native executable or library (ELF, PE, Mach-O)",
    fix: "ship source or a pinned package; binaries cannot be reviewed",
  },
  archive: {
    code: "suspicious.bundled_archive",
    level: "review",
    message: "bundles an archive whose contents are not scanned",
    fix: "ship the files unpacked so they can be reviewed",
  },
  encryptedZip: {
    code: "suspicious.encrypted_archive",
    level: "warn",
    message: "bundles a password-protected zip (its contents hide from scanners)",
    fix: "ship the files unpacked",
  },
  allowedTools: {
    code: "suspicious.allowed_tools_overbroad",
    level: "review",
    message: "allowed-tools grants more than the instructions use",
    fix: "list only the tools the instructions need, narrowed (Bash(git:*) rather than Bash)",
  },
  triggers: {
    code: "suspicious.trigger_hijacking",
    level: "warn",
    message: "the description claims to apply to everything, which hijacks the agent's choice of skill",
    fix: "describe the specific tasks the skill is for",
  },
  modelConcern: {
    code: "audit.model_concern",
    level: "review",
    message: "a model's second opinion flags this",
    fix: "read the flagged lines yourself: the model's opinion is advice, never a verdict",
  },
  undeclaredDestination: {
    code: "suspicious.undeclared_destination",
    level: "review",
    message: "names a host its least-privilege declaration does not list (a run would be refused there)",
    fix: "add the host to metadata skillport.network, or remove the reference",
  },
  notScanned: {
    code: "audit.file_not_scanned",
    level: "review",
    message: "a file was not scanned (over a size or count limit)",
    fix: "raise --max-file-bytes/--max-files, or keep skill files small",
  },
} as const satisfies Record<string, RuleInfo>;
