/*
 * The sandbox's seccomp filter, built with libseccomp and written to stdout as a classic-BPF program for bwrap's
 * `--seccomp FD`. Run by scripts/gen-seccomp.mjs, which embeds the output in packages/sandbox/src/seccomp-filter.ts (docs/decisions/0246).
 *
 * Usage: seccomp-filter x86_64|aarch64 | seccomp-filter --libseccomp-version
 *
 * Default: allow. Denied (EPERM): system calls an unprivileged program has no business making that widen the kernel's
 * attack surface or cross the sandbox (key rings are per uid, not per sandbox). clone3 answers ENOSYS so libc falls
 * back to clone, whose flags a filter can read. Any other architecture than the ones named kills the process.
 */
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>

static const char *const denied[] = {
    /* kernel key rings: shared by every process of a uid */
    "keyctl", "add_key", "request_key",
    /* large, often-exploited kernel interfaces */
    "io_uring_setup", "io_uring_enter", "io_uring_register", "perf_event_open", "bpf", "userfaultfd",
    /* the kernel itself and the machine */
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module", "reboot", "swapon", "swapoff",
    "acct", "syslog", "lookup_dcookie", "quotactl", "quotactl_fd", "uselib", "vm86", "vm86old", "iopl", "ioperm",
    /* file handles bypass path permissions */
    "open_by_handle_at", "name_to_handle_at",
    /* mounts and namespaces */
    "mount", "umount", "umount2", "pivot_root", "move_mount", "open_tree", "fsopen", "fsconfig", "fsmount", "fspick",
    "mount_setattr", "setns",
};

#define NEW_USER_NAMESPACE 0x10000000UL /* CLONE_NEWUSER */

/* personality flags that weaken memory protections (ASLR off, executable data, a mapping at page zero). */
static const unsigned long risky_personality[] = {0x0040000 /* ADDR_NO_RANDOMIZE */, 0x0400000 /* READ_IMPLIES_EXEC */,
                                                  0x0100000 /* MMAP_PAGE_ZERO */};

static int add_arch(scmp_filter_ctx ctx, uint32_t arch) {
  int rc = seccomp_arch_add(ctx, arch);
  return rc == -EEXIST ? 0 : rc;
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "--libseccomp-version") == 0) {
    const struct scmp_version *v = seccomp_version();
    printf("%u.%u.%u\n", v->major, v->minor, v->micro);
    return 0;
  }
  if (argc != 2) {
    fprintf(stderr, "usage: seccomp-filter x86_64|aarch64\n");
    return 2;
  }
  uint32_t arches[2];
  if (strcmp(argv[1], "x86_64") == 0) {
    arches[0] = SCMP_ARCH_X86_64;
    arches[1] = SCMP_ARCH_X86; /* 32-bit calls (int 0x80) get the same filter, by their own numbers */
  } else if (strcmp(argv[1], "aarch64") == 0) {
    arches[0] = SCMP_ARCH_AARCH64;
    arches[1] = SCMP_ARCH_ARM;
  } else {
    fprintf(stderr, "seccomp-filter: unknown architecture %s\n", argv[1]);
    return 2;
  }
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (ctx == NULL) return 1;
  int rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
  for (int i = 0; rc == 0 && i < 2; i++) rc = add_arch(ctx, arches[i]);
  /* Only the named architectures: the build host's own is dropped unless named, so the output does not depend on it. */
  uint32_t native = seccomp_arch_native();
  if (rc == 0 && native != arches[0] && native != arches[1]) rc = seccomp_arch_remove(ctx, native);
  for (size_t i = 0; rc == 0 && i < sizeof denied / sizeof denied[0]; i++) {
    int nr = seccomp_syscall_resolve_name(denied[i]);
    if (nr == __NR_SCMP_ERROR) {
      fprintf(stderr, "seccomp-filter: libseccomp does not know %s\n", denied[i]);
      rc = -ENOENT;
      break;
    }
    rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0);
  }
  /* New user namespaces: clone and unshare with CLONE_NEWUSER (the flags are the first argument on both arches). */
  if (rc == 0) rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(unshare), 1, SCMP_A0(SCMP_CMP_MASKED_EQ, NEW_USER_NAMESPACE, NEW_USER_NAMESPACE));
  if (rc == 0) rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1, SCMP_A0(SCMP_CMP_MASKED_EQ, NEW_USER_NAMESPACE, NEW_USER_NAMESPACE));
  if (rc == 0) rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
  /* personality: a flag above, unless the call is the query 0xffffffff (bit 31 set). */
  for (size_t i = 0; rc == 0 && i < sizeof risky_personality / sizeof risky_personality[0]; i++) {
    unsigned long flag = risky_personality[i];
    rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(personality), 1, SCMP_A0(SCMP_CMP_MASKED_EQ, 0x80000000UL | flag, flag));
  }
  if (rc == 0) rc = seccomp_export_bpf(ctx, fileno(stdout));
  seccomp_release(ctx);
  if (rc != 0) {
    fprintf(stderr, "seccomp-filter: %s\n", strerror(-rc));
    return 1;
  }
  return 0;
}
