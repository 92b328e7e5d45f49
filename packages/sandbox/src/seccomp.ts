import { SECCOMP_FILTERS } from "./seccomp-filter.js";

/**
 * The seccomp filter bubblewrap installs before the sandboxed command starts (docs/decisions/0246): denies, with EPERM,
 * the kernel's key rings (shared by every process of a uid, so by every sandbox), io_uring, perf events, bpf,
 * userfaultfd, modules, kexec, mounts, new user namespaces and the like; kills a process that calls in through an
 * architecture the filter does not know. Built by scripts/gen-seccomp.mjs with libseccomp, for x86_64 and aarch64.
 */
export function seccompFilter(arch: string = process.arch): Buffer | undefined {
  const encoded = SECCOMP_FILTERS[arch];
  return encoded === undefined ? undefined : Buffer.from(encoded, "base64");
}

/**
 * A bash statement that opens `fd` on a pipe holding the filter, for bwrap's `--seccomp fd` (bwrap reads it to EOF and
 * closes it), used by long-running commands (the launcher gets its pipe from Node). The bytes are printf escapes in
 * the script itself: no file that sandboxed code could replace between runs.
 */
export function openFilterStatement(filter: Buffer, fd: number): string {
  let escaped = "";
  for (const byte of filter) escaped += `\\x${byte.toString(16).padStart(2, "0")}`;
  return `exec ${fd}< <(printf '${escaped}')`;
}

/** What a result says when the host's architecture has no filter (the sandbox runs, without one). */
export function missingFilterWarning(arch: string = process.arch): string {
  return `no seccomp filter is built for ${arch}: key rings, io_uring, perf events and other kernel interfaces stay reachable in the sandbox`;
}
