/*
 * run.c - fork, exec, wait4. This file is its own small syscall boundary:
 * it turns errno into -errno right at each call, like lib/base/sys.c.
 */
#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

volatile sig_atomic_t bench_interrupted;
static volatile pid_t child_pgid;

static void on_signal(int sig)
{
	pid_t pg = child_pgid;

	bench_interrupted = sig;
	if (pg > 0)
		kill(-pg, SIGKILL); /* async-signal-safe; the waiter reaps it */
}

void bench_signals_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

void bench_signals_reraise(void)
{
	int sig = bench_interrupted;

	if (!sig)
		return;
	signal(sig, SIG_DFL);
	raise(sig);
}

static void (*hook)(const void *);
static const void *hook_arg;

void bench_run_set_hook(void (*fn)(const void *), const void *arg)
{
	hook = fn;
	hook_arg = arg;
}

static void child(char *const argv[], int errfd)
{
	int null = open("/dev/null", O_RDWR);

	setpgid(0, 0);
	if (hook)
		hook(hook_arg);
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
	}
	if (errfd >= 0)
		dup2(errfd, 2);
	execvp(argv[0], argv);
	dprintf(2, "fastcp-bench: cannot run '%s': %s\n", argv[0], strerror(errno));
	_exit(127);
}

/* Keep the last part of what the child wrote on stderr. */
static void read_tail(int fd, char *buf, size_t len)
{
	off_t size = lseek(fd, 0, SEEK_END);
	off_t off = size > (off_t)len - 1 ? size - (off_t)len + 1 : 0;
	ssize_t n = pread(fd, buf, len - 1, off);

	buf[n > 0 ? n : 0] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
}

static double tv(struct timeval t)
{
	return t.tv_sec + t.tv_usec * 1e-6;
}

int bench_run_argv(char *const argv[], struct bench_proc *p)
{
	int errfd = memfd_create("fastcp-bench-stderr", MFD_CLOEXEC);
	struct rusage ru;
	pid_t pid, w;

	memset(p, 0, sizeof(*p));
	pid = fork();
	if (pid < 0) {
		int e = errno;

		if (errfd >= 0)
			close(errfd);
		return -e;
	}
	if (pid == 0)
		child(argv, errfd);
	setpgid(pid, pid); /* also here: whichever runs first wins the race */
	child_pgid = pid;
	if (bench_interrupted)
		kill(-pid, SIGKILL);
	do
		w = wait4(pid, &p->status, 0, &ru);
	while (w < 0 && errno == EINTR);
	child_pgid = 0;
	if (w < 0) {
		int e = errno;

		if (errfd >= 0)
			close(errfd);
		return -e;
	}
	p->user = tv(ru.ru_utime);
	p->sys = tv(ru.ru_stime);
	p->maxrss_kib = ru.ru_maxrss;
	if (errfd >= 0) {
		read_tail(errfd, p->err, sizeof(p->err));
		close(errfd);
	}
	return 0;
}

int bench_run_shell(const char *cmdline, struct bench_proc *p)
{
	char *argv[] = { "/bin/sh", "-c", (char *)cmdline, NULL };

	return bench_run_argv(argv, p);
}

bool bench_proc_ok(const struct bench_proc *p)
{
	return WIFEXITED(p->status) && WEXITSTATUS(p->status) == 0;
}

void bench_proc_status(const struct bench_proc *p, char *buf, size_t len)
{
	if (WIFEXITED(p->status))
		snprintf(buf, len, "exit status %d", WEXITSTATUS(p->status));
	else if (WIFSIGNALED(p->status))
		snprintf(buf, len, "killed by signal %d", WTERMSIG(p->status));
	else
		snprintf(buf, len, "wait status 0x%x", p->status);
}
