/*
 * run.h - running a child process tree and measuring it.
 *
 * The child runs in its own process group, so an interrupt reaches
 * fastcp-bench alone, which then kills the whole group and cleans up what
 * it created (mounts, loop devices, destinations) instead of leaving them.
 */
#ifndef FCP_BENCH_RUN_H
#define FCP_BENCH_RUN_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

struct bench_proc {
	int status;        /* wait status */
	double user, sys;  /* CPU seconds of the child and its waited-for children */
	long maxrss_kib;   /* peak RSS of the largest process in the tree */
	char err[1024];    /* the tail of the child's stderr */
};

/*
 * Run argv (stdout to /dev/null, stderr captured) and wait for it.
 * Returns 0 when the child ran (see p->status), -errno when it could not.
 */
int bench_run_argv(char *const argv[], struct bench_proc *p);

/* Call fn(arg) in every child before it runs its command (NULL: none). */
void bench_run_set_hook(void (*fn)(const void *), const void *arg);
/* Run a command line through /bin/sh -c. */
int bench_run_shell(const char *cmdline, struct bench_proc *p);
/* True when the child exited with status 0. */
bool bench_proc_ok(const struct bench_proc *p);
/* "exit status 1" or "killed by signal 9". */
void bench_proc_status(const struct bench_proc *p, char *buf, size_t len);

/* Catch SIGINT, SIGTERM and SIGHUP: kill the running child, set the flag. */
void bench_signals_install(void);
/* The signal that interrupted us, or 0. */
extern volatile sig_atomic_t bench_interrupted;
/* Re-raise the interrupting signal with its default action (after cleanup). */
void bench_signals_reraise(void);

#endif
