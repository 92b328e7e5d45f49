import type { Finding } from "./types.js";
import { OTHER_RULES } from "./rules.js";

const starts = (b: Uint8Array, magic: readonly number[], at = 0) => magic.every((v, i) => b[at + i] === v);

/** Executable formats by magic number: ELF, PE (MZ), Mach-O (thin and fat, both byte orders). */
function executableFormat(b: Uint8Array): string | undefined {
  if (starts(b, [0x7f, 0x45, 0x4c, 0x46])) return "ELF";
  if (starts(b, [0x4d, 0x5a]) && b.length >= 64) return "PE";
  for (const m of [
    [0xfe, 0xed, 0xfa, 0xce],
    [0xfe, 0xed, 0xfa, 0xcf],
    [0xce, 0xfa, 0xed, 0xfe],
    [0xcf, 0xfa, 0xed, 0xfe],
  ])
    if (starts(b, m)) return "Mach-O";
  // 0xCAFEBABE is also a Java class file; a fat Mach-O has a small architecture count where a class has its version.
  if (starts(b, [0xca, 0xfe, 0xba, 0xbe]) && (b[7] ?? 0) < 20 && b[4] === 0 && b[5] === 0 && b[6] === 0)
    return "Mach-O";
  return undefined;
}

function archiveFormat(b: Uint8Array): string | undefined {
  if (starts(b, [0x50, 0x4b, 0x03, 0x04]) || starts(b, [0x50, 0x4b, 0x05, 0x06])) return "zip";
  if (starts(b, [0x1f, 0x8b])) return "gzip";
  if (starts(b, [0x42, 0x5a, 0x68])) return "bzip2";
  if (starts(b, [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00])) return "xz";
  if (starts(b, [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c])) return "7z";
  if (starts(b, [0x52, 0x61, 0x72, 0x21, 0x1a, 0x07])) return "rar";
  if (starts(b, [0x75, 0x73, 0x74, 0x61, 0x72], 257)) return "tar";
  return undefined;
}

// Office and other document formats are zips too; they are documents a skill may well ship (templates).
const DOCUMENT = /\.(?:docx|xlsx|pptx|odt|ods|odp|epub|jar|whl|vsix|xpi|apk|ipa|kmz|sketch|fig|pbix|3mf)$/i;
const EXECUTABLE_NAME = /\.(?:exe|dll|so|dylib|scr|com|msi|appimage)$|(?:^|\/)[^./]+\.bin$/i;

/** A zip entry with the "encrypted" flag (bit 0 of the general-purpose flags) in its first local header. */
function encryptedZip(b: Uint8Array): boolean {
  return starts(b, [0x50, 0x4b, 0x03, 0x04]) && ((b[6] ?? 0) & 1) === 1;
}

/** Findings for a file read as bytes: bundled executables and archives. */
export function binaryFindings(file: string, bytes: Uint8Array): Finding[] {
  const exe = executableFormat(bytes);
  if (exe !== undefined || EXECUTABLE_NAME.test(file)) {
    return [{ ...OTHER_RULES.executable, file, line: 0, column: 0, evidence: exe ?? file }];
  }
  const archive = archiveFormat(bytes);
  if (archive === undefined) return [];
  if (encryptedZip(bytes))
    return [{ ...OTHER_RULES.encryptedZip, file, line: 0, column: 0, evidence: "zip (encrypted entries)" }];
  if (DOCUMENT.test(file)) return [];
  return [{ ...OTHER_RULES.archive, file, line: 0, column: 0, evidence: archive }];
}
