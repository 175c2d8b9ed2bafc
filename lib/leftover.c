/*
 * leftover.c - find what killed runs left in the destination, and say so.
 *
 * A run killed outright (SIGKILL, a crash, a power cut) cannot clean up:
 * its unfinished root copy stays as a .fcp-* directory beside the
 * destination name, and in directories that already existed its temporary
 * files stay under .fcp-* names (unnamed files in new directories leave
 * nothing). Nothing reuses them yet, so each costs its space until someone
 * removes it. Every run names those it meets: the directory where its root
 * copies go, and each destination directory that existed, read before
 * anything of this run can be in it.
 *
 * The same reading tells whether the directory holds a FIFO, device or
 * socket: where it holds none, commits rename plainly (dest.c).
 *
 * Nothing is removed. A name of the temporary shape proves neither that
 * fastcp made it nor that the run that made it is dead: a run going on
 * now holds a lock on its hidden root copy (fcp_dest_mkdir_hidden), so that
 * one is left out, but its temporary files look like any leftover.
 */
#include "dest.h"
#include "job.h"
#include "sys.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

/* ".fcp-" and three groups of lowercase hex digits joined by '-': the
 * temporary names of this version (random, worker, sequence) and of
 * earlier ones (pid, worker, sequence). */
static bool temp_shaped(const char *n)
{
	if (strncmp(n, ".fcp-", 5))
		return false;
	n += 5;
	for (int part = 0; part < 3; part++) {
		size_t k = strspn(n, "0123456789abcdef");
		if (!k)
			return false;
		n += k;
		if (part < 2 && *n++ != '-')
			return false;
	}
	return !*n;
}

/* Is the directory name in dirfd the hidden copy of a run going on now? */
static bool in_use(int dirfd, const char *name)
{
	int fd = fcp_sys_openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0);
	bool busy = fd >= 0 && fcp_sys_flock(fd, LOCK_SH | LOCK_NB) == -EWOULDBLOCK;

	if (fd >= 0)
		close(fd);
	return busy;
}

static void found(struct fcp_job *job, const struct fcp_dir *d, const char *abs_dir,
		  const char *name, bool dir)
{
	char *path = NULL;

	if (atomic_fetch_add(&job->c.leftovers, 1) >= FCP_LEFTOVERS_NAMED)
		return;
	if (!abs_dir || asprintf(&path, "%s/%s", abs_dir, name) < 0)
		path = fcp_dir_dst_path(d, name);
	fcp_report_leftover(job, path ? path : name, dir);
	free(path);
}

/* What refuse_special() (dest.c) would have to look at. */
static bool maybe_special(unsigned char type)
{
	return type != DT_REG && type != DT_DIR && type != DT_LNK;
}

bool fcp_leftover_scan(struct fcp_job *job, const struct fcp_dir *d, const char *abs_dir)
{
	int fd = fcp_sys_openat(d->dst_fd, ".", O_RDONLY | O_DIRECTORY, 0);
	size_t mine = strlen(job->tmp_prefix);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;
	bool special = false;
	int r;

	/* Only a report: a directory that cannot be read here is the copy's
	 * to report, if it matters to it. */
	if (!dir) {
		if (fd >= 0)
			close(fd);
		return true;
	}
	while ((r = fcp_sys_readdir(dir, &de)) > 0) {
		struct statx st;
		bool is_dir = de->d_type == DT_DIR;

		special |= maybe_special(de->d_type);
		if (!temp_shaped(de->d_name) || !strncmp(de->d_name, job->tmp_prefix, mine))
			continue;
		if (de->d_type == DT_UNKNOWN)
			is_dir = fcp_sys_statx(d->dst_fd, de->d_name, AT_SYMLINK_NOFOLLOW, STATX_TYPE,
					       &st) == 0 && S_ISDIR(st.stx_mode);
		if (!is_dir || !in_use(d->dst_fd, de->d_name))
			found(job, d, abs_dir, de->d_name, is_dir);
	}
	closedir(dir);
	/* A read error part way leaves names unseen. */
	special |= r < 0;
	return special;
}
