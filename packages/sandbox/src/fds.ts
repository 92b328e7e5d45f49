/**
 * What a sandboxed process may inherit: stdin, stdout, stderr and the descriptors its run hands it on purpose, nothing
 * else (issue 19). Node marks its own descriptors close-on-exec, but not the ones IT inherited: a supervisor's socket,
 * a log, a pipe at fd 251 would reach every sandboxed command through bwrap, setpriv and bash, none of which closes
 * them. The first shell of every run (the launcher or the limits prologue) closes them before it execs anything.
 */

/**
 * bash statements that close every descriptor above 2 except `keep`. They read /proc/self/fd (a run without it is
 * refused: exit 126, never one that keeps what it inherited); the listing's own descriptor is gone by then.
 */
export function closeInheritedFds(keep: readonly number[] = []): string {
  for (const fd of keep) if (!Number.isInteger(fd) || fd < 3) throw new RangeError(`cannot keep descriptor ${fd}`);
  const kept = keep.map((fd) => ` && __fd -ne ${fd}`).join("");
  return `[ -d /proc/self/fd ] || exit 126; for __fd in /proc/self/fd/*; do __fd=\${__fd##*/}; [[ __fd -gt 2${kept} ]] && exec {__fd}<&-; done; unset __fd`;
}
