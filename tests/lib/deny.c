/*
 * deny - run a command with some kernel features refused, as an older
 * kernel, another filesystem or an unprivileged user would refuse them, so
 * that the fallbacks of fastcp can be tested on this machine.
 *
 *   deny [empty-path] [proc-link] [tmpfile] [unlink] [noreplace] [renameflags] [xattrat]
 *        [direct] [handles] -- COMMAND [ARG...]
 *
 *   empty-path  linkat(..., AT_EMPTY_PATH) fails with ENOENT (no
 *               CAP_DAC_READ_SEARCH on kernels before 6.10)
 *   proc-link   linkat(..., AT_SYMLINK_FOLLOW) fails with ENOENT (no /proc)
 *   tmpfile     openat(..., O_TMPFILE) fails with EOPNOTSUPP (a filesystem
 *               without unnamed files)
 *   unlink      unlinkat() fails with EPERM (an append-only directory)
 *   noreplace   renameat2(..., RENAME_NOREPLACE) fails with EEXIST (the
 *               name was made by someone else meanwhile)
 *   renameflags renameat2() with any flag fails with EINVAL (NFS, 9p and
 *               FUSE daemons without rename2 take no rename flags)
 *   xattrat     setxattrat, getxattrat, listxattrat and removexattrat fail
 *               with ENOSYS (kernels before 6.13)
 *   direct      openat(..., O_DIRECT) and fcntl(F_SETFL, O_DIRECT) fail
 *               with EINVAL (a filesystem without O_DIRECT: some FUSE)
 *   handles     open_by_handle_at() fails with EPERM (no CAP_DAC_READ_SEARCH:
 *               not root, or root of a user namespace)
 *
 * A seccomp filter does it; it sees system calls only, not io_uring
 * requests (those need --no-io-uring, or a probe made by system call).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define ARCH AUDIT_ARCH_AARCH64
#else
#error "deny: add this architecture's AUDIT_ARCH"
#endif

#define ARG(n) (offsetof(struct seccomp_data, args[n])) /* low 32 bits: little endian */
#define FAIL(e) BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (e))
#define ALLOW BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)

int main(int argc, char **argv)
{
	unsigned link_mask = 0, open_mask = 0, rename_mask = 0, flags_mask = 0, direct_mask = 0;
	unsigned unlink_nr = ~0u; /* matches no system call unless asked */
	unsigned xattrat_lo = ~0u; /* the same */
	unsigned handle_nr = ~0u;  /* the same */
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "empty-path"))
			link_mask |= AT_EMPTY_PATH;
		else if (!strcmp(argv[i], "proc-link"))
			link_mask |= AT_SYMLINK_FOLLOW;
		else if (!strcmp(argv[i], "tmpfile"))
			open_mask |= 020000000; /* the kernel's __O_TMPFILE, without O_DIRECTORY */
		else if (!strcmp(argv[i], "unlink"))
			unlink_nr = __NR_unlinkat;
		else if (!strcmp(argv[i], "noreplace"))
			rename_mask |= 1; /* RENAME_NOREPLACE */
		else if (!strcmp(argv[i], "renameflags"))
			flags_mask = ~0u;
		else if (!strcmp(argv[i], "xattrat"))
			xattrat_lo = 463; /* setxattrat .. removexattrat: 463 .. 466 everywhere */
		else if (!strcmp(argv[i], "direct"))
			direct_mask = O_DIRECT;
		else if (!strcmp(argv[i], "handles"))
			handle_nr = __NR_open_by_handle_at;
		else {
			fprintf(stderr, "deny: unknown feature %s\n", argv[i]);
			return 2;
		}
	}
	if (i + 1 >= argc) {
		fprintf(stderr, "usage: deny FEATURE... -- COMMAND [ARG...]\n");
		return 2;
	}
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH, 1, 0),
		ALLOW,
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_openat, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG(2)),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, direct_mask, 0, 1),
		FAIL(EINVAL),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_fcntl, 0, 5),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG(1)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, F_SETFL, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG(2)),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, direct_mask, 0, 1),
		FAIL(EINVAL),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, unlink_nr, 0, 1),
		FAIL(EPERM),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, handle_nr, 0, 1),
		FAIL(EPERM),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, xattrat_lo, 0, 2),
		BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, 466, 1, 0),
		FAIL(ENOSYS),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_linkat, 0, 4),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG(4)),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, link_mask, 0, 1),
		FAIL(ENOENT),
		ALLOW,
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_openat, 0, 4),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG(2)),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, open_mask, 0, 1),
		FAIL(EOPNOTSUPP),
		ALLOW,
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_renameat2, 0, 5),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG(4)),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, flags_mask, 0, 1),
		FAIL(EINVAL),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, rename_mask, 0, 1),
		FAIL(EEXIST),
		ALLOW,
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		perror("deny: seccomp");
		return 2;
	}
	execvp(argv[i + 1], argv + i + 1);
	perror(argv[i + 1]);
	return 127;
}
