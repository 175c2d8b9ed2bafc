/*
 * wlimit.h - compare --write-limit: the destination device written at
 * most RATE bytes a second, as a slower disk would take them.
 */
#ifndef FCP_BENCH_WLIMIT_H
#define FCP_BENCH_WLIMIT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct wlimit {
	uint64_t rate;    /* bytes per second; 0: no limit */
	int v;            /* cgroup version in use: 1 or 2 (0 before setup) */
	char *dir;        /* v2: our cgroup; v1: the blkio hierarchy's root */
	int procs_fd;     /* v2: its cgroup.procs, which each command joins */
	dev_t dev;        /* the device limited now, 0 when none */
};

/* Find the I/O controller (cgroup v2 io, else v1 blkio) and, for v2, make
 * our cgroup. 0, or -errno with a message. */
int wlimit_setup(struct wlimit *w, uint64_t rate);

/* Limit writes to the block device dev (a whole disk: the loop device of
 * a fresh filesystem) until wlimit_clear. 0 or -errno. */
int wlimit_apply(struct wlimit *w, dev_t dev);
void wlimit_clear(struct wlimit *w);

/* For the command's child, before exec: join our cgroup (v2); nothing on
 * v1, whose limit is the device's for every writer, the kernel's
 * writeback threads included (v1 does not charge writeback to the task
 * that dirtied the pages). */
void wlimit_join(const void *w);

/* Remove what wlimit_setup made. */
void wlimit_release(struct wlimit *w);

/* "cgroup v2 io.max" or "cgroup v1 blkio.throttle.write_bps_device". */
const char *wlimit_how(const struct wlimit *w);

#endif
