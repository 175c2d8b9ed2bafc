/*
 * pick.c - choosing what to copy (pick.h): the rules of --exclude and
 * the like, the .gitignore files, CACHEDIR.TAG, the size and time limits
 * and -x, asked as the walk meets each name.
 */
#include "policy/pick.h"
#include "base/filter.h"
#include "core/node.h"
#include "policy/plan.h"
#include "base/sys.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STATX_WANT (STATX_BASIC_STATS)

/*
 * Choosing what to copy. Rules see the path below the copied source
 * directory (its own name not included: a leading '/' anchors there), as
 * rsync does for "SRC/"; the operands themselves are never filtered.
 */

/* An opened .gitignore: its rules, its directory's path length (plus the
 * '/') in the paths matched, and the list of the directory above. */
struct fcp_ignore {
	struct fcp_rules rules;
	size_t base;
	struct fcp_ignore *up;
};

#define IGNORE_MAX (1 << 20)
#define CACHEDIR_SIG "Signature: 8a477f597d28d172789f06886806bc55"

static bool limits(const struct fcp_options *o)
{
	return o->min_size > 0 || o->max_size >= 0 || o->newer_than != LLONG_MIN ||
	       o->older_than != LLONG_MAX;
}

static const struct fcp_rules *rules_of(const struct fcp_options *o)
{
	return o->filter && o->filter->rules.n ? &o->filter->rules : NULL;
}

bool fcp_options_filter(const struct fcp_options *o)
{
	return rules_of(o) || o->gitignore || o->exclude_caches || limits(o);
}

static bool needs_paths(const struct fcp_options *o)
{
	return o->gitignore || (rules_of(o) && rules_of(o)->needs_path);
}

/* Read the ignore file name in d into a list above d->ign, d's own. */
static void load_ignore(struct fcp_job *job, struct fcp_dir *d, const char *name)
{
	struct fcp_ignore *ig;
	char *text;
	ssize_t n = fcp_sys_read_file(d->src_fd, name, IGNORE_MAX, &text);

	/* git does not follow a .gitignore that is a symlink either, and
	 * takes one that is no regular file for none. */
	if (n == -ENOENT || n == -ELOOP || n == -EINVAL)
		return;
	if (n < 0) {
		if (!d->counting)
			fcp_report_failed_in(job, "cannot read ignore file", d, name, false, (int)n);
		return;
	}
	ig = calloc(1, sizeof(*ig));
	if (ig) {
		ig->rules.git = true;
		ig->base = d->depth > 0 ? strlen(d->rel) + 1 : 0;
		ig->up = d->ign;
	}
	if (!ig || fcp_rules_parse(&ig->rules, text, (size_t)n) < 0) {
		if (!d->counting)
			fcp_report_failed_in(job, "out of memory reading", d, name, false, -ENOMEM);
		if (ig)
			fcp_rules_free(&ig->rules);
		free(ig);
	} else {
		d->ign = ig;
		d->own_ign++;
	}
	free(text);
}

/* d's lists: its .gitignore over those of the directories above; at the
 * root of a repository, .git/info/exclude below them all, as in git. */
static void load_ignores(struct fcp_job *job, struct fcp_dir *d)
{
	d->ign = d->depth > 0 ? d->parent->ign : NULL;
	if (d->depth == 0)
		load_ignore(job, d, ".git/info/exclude");
	load_ignore(job, d, ".gitignore");
}

bool fcp_plan_reads(struct fcp_job *job, struct fcp_dir *d)
{
	const struct fcp_options *o = job->o;
	const struct fcp_dir *top = d;

	if (o->one_file_system && d->depth > 0) {
		while (top->depth > 0)
			top = top->parent;
		if (fcp_statx_dev(&top->st) != fcp_statx_dev(&d->st))
			return false;
	}
	if (!fcp_options_filter(o) || d->depth < 0)
		return true;
	if (needs_paths(o) && !d->rel) {
		d->rel = d->depth == 0 ? strdup("") : fcp_path_join(d->parent->rel, d->name);
		if (!d->rel) {
			/* Rules without the path would pick wrongly: skip it. */
			if (!d->counting)
				fcp_report_failed_in(job, "out of memory in", d, NULL, false, -ENOMEM);
			return false;
		}
	}
	if (o->gitignore)
		load_ignores(job, d);
	return true;
}

void fcp_plan_dir_free(struct fcp_dir *d)
{
	for (; d->own_ign > 0; d->own_ign--) {
		struct fcp_ignore *up = d->ign->up;

		fcp_rules_free(&d->ign->rules);
		free(d->ign);
		d->ign = up;
	}
	d->ign = NULL;
	free(d->rel);
	d->rel = NULL;
}

/* Do the rules leave path (name at its end) out? The command line's
 * first, in their order; then the .gitignore files, the deepest first. */
static bool ruled_out(const struct fcp_job *job, const struct fcp_dir *d, const char *path,
		      bool is_dir)
{
	const struct fcp_rules *r = rules_of(job->o);
	const char *name = strrchr(path, '/');
	int m = r ? fcp_rules_match(r, path, is_dir) : 0;

	if (m || !job->o->gitignore)
		return m > 0;
	if (!strcmp(name ? name + 1 : path, ".git"))
		return true;
	for (const struct fcp_ignore *ig = d->ign; ig; ig = ig->up)
		if ((m = fcp_rules_match(&ig->rules, path + ig->base, is_dir)))
			return m > 0;
	return false;
}

/* The path of name (or a path below d) in d below the root copy: in buf when it fits, else
 * malloc'd into *big (NULL: out of memory). */
static const char *entry_path(const struct fcp_dir *d, const char *name, char *buf, size_t cap,
			      char **big)
{
	size_t a = d->rel ? strlen(d->rel) : 0, b = strlen(name);
	char *p = buf;

	*big = NULL;
	if (!d->rel)
		return name;
	if (a + b + 2 > cap && !(p = *big = malloc(a + b + 2)))
		return NULL;
	memcpy(p, d->rel, a);
	p[a] = '/';
	memcpy(p + (a ? a + 1 : 0), name, b + 1);
	return p;
}

static bool rules_leave_out(const struct fcp_job *job, const struct fcp_dir *d,
			    const char *name, bool is_dir)
{
	char buf[1024], *big;
	const char *path = entry_path(d, name, buf, sizeof(buf), &big);
	bool out = path && ruled_out(job, d, path, is_dir);

	free(big);
	return out;
}

/* Is directory name of d a cache (a CACHEDIR.TAG with the signature)? */
static bool cache_tagged(struct fcp_dir *d, const char *name)
{
	int fd = fcp_sys_openat(d->src_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0);
	char *text = NULL;
	bool tagged;

	if (fd < 0)
		return false;
	tagged = fcp_sys_read_file(fd, "CACHEDIR.TAG", strlen(CACHEDIR_SIG), &text) ==
			 (ssize_t)strlen(CACHEDIR_SIG) &&
		 !memcmp(text, CACHEDIR_SIG, strlen(CACHEDIR_SIG));
	free(text);
	close(fd);
	return tagged;
}

static long long mtime_ns(const struct statx *st)
{
	return (long long)st->stx_mtime.tv_sec * 1000000000 + st->stx_mtime.tv_nsec;
}

/* Size (regular files) and time (all but directories) bounds. */
static bool outside_limits(const struct fcp_options *o, const struct statx *st)
{
	long long t = mtime_ns(st);

	if (S_ISREG(st->stx_mode) && ((long long)st->stx_size < o->min_size ||
				      (o->max_size >= 0 && (long long)st->stx_size > o->max_size)))
		return true;
	return t <= o->newer_than || t >= o->older_than;
}

enum fcp_pick fcp_plan_pick(struct fcp_job *job, struct fcp_dir *d, const char *name,
			    unsigned char *type)
{
	const struct fcp_options *o = job->o;
	const struct fcp_rules *r = rules_of(o);
	int flags = o->symlinks == FCP_SYMLINKS_FOLLOW ? 0 : AT_SYMLINK_NOFOLLOW;
	bool typed = (r && r->needs_type) || o->gitignore || o->exclude_caches || limits(o);
	bool stated = false, is_dir;
	struct statx st;

	/* Not told by getdents (or following links): asked. An entry that
	 * cannot be stat'ed goes on, and its copy reports the error. */
	if (typed && (*type == DT_UNKNOWN || (!flags && *type == DT_LNK)) &&
	    fcp_sys_statx(d->src_fd, name, flags, STATX_WANT, &st) == 0) {
		stated = true;
		*type = IFTODT(st.stx_mode);
	}
	is_dir = *type == DT_DIR;
	if ((r || o->gitignore) && rules_leave_out(job, d, name, is_dir))
		return FCP_PICK_RULE;
	if (is_dir)
		return o->exclude_caches && cache_tagged(d, name) ? FCP_PICK_RULE : FCP_PICK_COPY;
	if (!limits(o) ||
	    (!stated && fcp_sys_statx(d->src_fd, name, flags, STATX_WANT, &st) < 0))
		return FCP_PICK_COPY;
	return outside_limits(o, &st) ? FCP_PICK_LIMIT : FCP_PICK_COPY;
}

bool fcp_plan_keeps_extra(struct fcp_job *job, struct fcp_dir *d, const char *below, int dirfd,
			  const char *name)
{
	const struct fcp_options *o = job->o;
	struct statx st;
	bool is_dir;

	/* A taken-up copy is fastcp's own unfinished work: nothing in it is
	 * the user's to keep for a rule. */
	if (o->delete_excluded || (!rules_of(o) && !o->gitignore) || fcp_plan_taken_up(d))
		return false;
	/* Not stat'ed: it is no directory to the rules, which then keep it
	 * only if a rule for all kinds matches. */
	is_dir = fcp_sys_statx(dirfd, name, AT_SYMLINK_NOFOLLOW, STATX_TYPE, &st) == 0 &&
		 S_ISDIR(st.stx_mode);
	return rules_leave_out(job, d, below, is_dir);
}
