/*
 * wlimit.c - compare --write-limit (the seed reports' 30 MB/s and 100 MB/s
 * destinations) with the kernel's block I/O throttle.
 *
 * cgroup v2: a cgroup of ours with io.max "MAJ:MIN wbps=RATE", which every
 * timed command joins; with the memory controller on, the writeback of
 * the pages it dirtied is charged to it too, so a buffered copy and the
 * final sync are throttled alike. cgroup v1 (a hybrid machine whose io
 * controller is bound to the v1 blkio hierarchy): v1 charges writeback to
 * the kernel's flusher threads, in the root group, so the limit is put on
 * the root group for the device: every writer of it is throttled. That is
 * why --write-limit needs --fresh-fs: the device is then a loop device of
 * the benchmark's own, and nothing else on the machine is slowed.
 */
#include "wlimit.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "bench.h"

#define V1_ROOT "/sys/fs/cgroup/blkio"
#define V1_FILE "blkio.throttle.write_bps_device"

static int write_file(const char *dir, const char *name, const char *text)
{
	char path[4096];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		ret = -errno;
	close(fd);
	return ret;
}

static bool file_has_word(const char *path, const char *word)
{
	char buf[512], *tok, *save;
	FILE *f = fopen(path, "re");
	bool found = false;

	if (!f)
		return false;
	if (fgets(buf, sizeof(buf), f))
		for (tok = strtok_r(buf, " \n", &save); tok && !found;
		     tok = strtok_r(NULL, " \n", &save))
			found = !strcmp(tok, word);
	fclose(f);
	return found;
}

/* The cgroup2 mount whose root offers the io controller, or NULL. */
static char *v2_root(void)
{
	char line[4096], mnt[4096], type[64];
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *found = NULL;

	while (f && !found && fgets(line, sizeof(line), f)) {
		char *dash = strstr(line, " - ");
		char ctl[4200];

		if (!dash || sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1 ||
		    sscanf(dash, " - %63s", type) != 1 || strcmp(type, "cgroup2"))
			continue;
		snprintf(ctl, sizeof(ctl), "%s/cgroup.controllers", mnt);
		if (file_has_word(ctl, "io"))
			found = strdup(mnt);
	}
	if (f)
		fclose(f);
	return found;
}

static int setup_v2(struct wlimit *w, const char *root)
{
	char dir[4096], procs[4200];
	int ret;

	/* memory too: it is what charges writeback to the cgroup */
	write_file(root, "cgroup.subtree_control", "+memory");
	ret = write_file(root, "cgroup.subtree_control", "+io");
	if (ret < 0)
		return bench_syserr(ret, "enable the io controller in", root), ret;
	snprintf(dir, sizeof(dir), "%s/fastcp-bench.%d", root, (int)getpid());
	if (mkdir(dir, 0755) < 0)
		return ret = -errno, bench_syserr(ret, "create the cgroup", dir), ret;
	w->dir = strdup(dir);
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
	w->procs_fd = open(procs, O_WRONLY | O_CLOEXEC);
	if (w->procs_fd < 0)
		return ret = -errno, bench_syserr(ret, "open", procs), ret;
	w->v = 2;
	return 0;
}

int wlimit_setup(struct wlimit *w, uint64_t rate)
{
	char *root = v2_root();
	char v1[sizeof(V1_ROOT "/" V1_FILE)];
	int ret;

	w->rate = rate;
	w->procs_fd = -1;
	if (root) {
		ret = setup_v2(w, root);
		free(root);
		return ret;
	}
	snprintf(v1, sizeof(v1), "%s/%s", V1_ROOT, V1_FILE);
	if (access(v1, W_OK) < 0)
		return bench_err("--write-limit needs the cgroup v2 io controller or the v1 "
				 "blkio hierarchy at " V1_ROOT ", writable (root)"),
		       -ENOTSUP;
	w->dir = strdup(V1_ROOT);
	w->v = 1;
	return 0;
}

static int set(const struct wlimit *w, dev_t dev, uint64_t rate)
{
	char text[96];

	if (w->v == 2) {
		if (rate)
			snprintf(text, sizeof(text), "%u:%u wbps=%llu", major(dev), minor(dev),
				 (unsigned long long)rate);
		else
			snprintf(text, sizeof(text), "%u:%u wbps=max", major(dev), minor(dev));
		return write_file(w->dir, "io.max", text);
	}
	snprintf(text, sizeof(text), "%u:%u %llu", major(dev), minor(dev),
		 (unsigned long long)rate);
	return write_file(w->dir, V1_FILE, text);
}

int wlimit_apply(struct wlimit *w, dev_t dev)
{
	int ret;

	if (!w->v)
		return 0;
	ret = set(w, dev, w->rate);
	if (ret < 0) {
		char what[64];

		snprintf(what, sizeof(what), "limit writes to device %u:%u in", major(dev),
			 minor(dev));
		return bench_syserr(ret, what, w->dir), ret;
	}
	w->dev = dev;
	return 0;
}

void wlimit_clear(struct wlimit *w)
{
	if (w->v && w->dev)
		set(w, w->dev, 0);
	w->dev = 0;
}

void wlimit_join(const void *arg)
{
	const struct wlimit *w = arg;

	if (w && w->v == 2 && w->procs_fd >= 0)
		(void)!write(w->procs_fd, "0\n", 2);
}

void wlimit_release(struct wlimit *w)
{
	wlimit_clear(w);
	if (w->procs_fd >= 0)
		close(w->procs_fd);
	w->procs_fd = -1;
	/* Its commands have all exited: the cgroup is empty. */
	if (w->v == 2 && w->dir && rmdir(w->dir) < 0)
		bench_syserr(-errno, "remove the cgroup", w->dir);
	free(w->dir);
	w->dir = NULL;
	w->v = 0;
}

const char *wlimit_how(const struct wlimit *w)
{
	return w->v == 2 ? "cgroup v2 io.max of the commands' cgroup"
			 : "cgroup v1 blkio.throttle.write_bps_device of the root group";
}
