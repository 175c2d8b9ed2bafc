/*
 * operands.c - several SOURCEs into one DEST: repeats and rounds (see
 * operands.h for the rules).
 *
 * Two sorts of an index array, so that a command line of many thousand
 * operands (a shell glob) costs n log n: by inode to find the repeats, by
 * name to number the rounds. Ties keep command-line order, so the first
 * naming is the one copied and the rounds follow the command line.
 */
#include "core/node.h"
#include "face/operands.h"
#include "base/sys.h"

#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int by_inode(const void *a, const void *b, void *arg)
{
	const struct fcp_operand *ops = arg;
	int i = *(const int *)a, j = *(const int *)b;
	const struct statx *x = &ops[i].st, *y = &ops[j].st;
	int c = (int)ops[j].stat_ok - (int)ops[i].stat_ok;

	if (!c && ops[i].stat_ok)
		c = cmp_u64(fcp_statx_dev(x), fcp_statx_dev(y));
	if (!c && ops[i].stat_ok)
		c = cmp_u64(x->stx_ino, y->stx_ino);
	return c ? c : i - j;
}

static int by_name(const void *a, const void *b, void *arg)
{
	const struct fcp_operand *ops = arg;
	int i = *(const int *)a, j = *(const int *)b;
	const char *x = ops[i].name, *y = ops[j].name;
	int c = !x || !y ? (!x) - (!y) : strcmp(x, y);

	return c ? c : i - j;
}

static bool same_name(const struct fcp_operand *a, const struct fcp_operand *b)
{
	return a->name && b->name && !strcmp(a->name, b->name);
}

/* The directory that holds src's entry, as a statx (followed: "sym/f"
 * and "dir/f" name one entry when sym leads to dir). */
static bool parent_of(const char *src, struct statx *st)
{
	char *copy = strdup(src);
	size_t n = copy ? strlen(copy) : 0;
	bool ok;

	while (n > 1 && copy[n - 1] == '/')
		copy[--n] = 0;
	ok = copy && fcp_sys_statx(AT_FDCWD, dirname(copy), 0, STATX_BASIC_STATS, st) == 0;
	free(copy);
	return ok;
}

/* Is b the same source as a, which has the same inode? */
static bool same_source(const struct fcp_operand *a, const struct fcp_operand *b)
{
	struct statx pa, pb;

	if (S_ISDIR(a->st.stx_mode))
		return true;
	return same_name(a, b) && parent_of(a->src, &pa) &&
	       parent_of(b->src, &pb) && fcp_statx_same_inode(&pa, &pb);
}

/* Mark every operand that names an earlier one's source again. */
static void find_repeats(struct fcp_operand *ops, const int *idx, int n)
{
	for (int s = 0, e; s < n; s = e) {
		const struct fcp_operand *first = &ops[idx[s]];

		for (e = s + 1; e < n && first->stat_ok && ops[idx[e]].stat_ok &&
				fcp_statx_same_inode(&first->st, &ops[idx[e]].st);
		     e++)
			;
		/* Compared with the earlier ones that are not repeats: a run
		 * of one inode is mostly the same entry named n times. */
		for (int j = s + 1; j < e; j++)
			for (int k = s; k < j && !ops[idx[j]].repeat; k++)
				if (!ops[idx[k]].repeat && same_source(&ops[idx[k]], &ops[idx[j]]))
					ops[idx[j]].repeat = true;
	}
}

/* Number the operands of each name in command-line order; the ones that
 * wait remember what DEST/name was before the job. */
static int number_rounds(struct fcp_operand *ops, const int *idx, int n, const char *dst)
{
	int last = 0;

	for (int s = 0, e; s < n; s = e) {
		int round = 0;

		for (e = s + 1; e < n && same_name(&ops[idx[s]], &ops[idx[e]]); e++)
			;
		for (int j = s; j < e; j++) {
			struct fcp_operand *op = &ops[idx[j]];
			char *path;

			if (op->repeat || !op->name)
				continue;
			op->round = round++;
			if (op->round == 0)
				continue;
			if (!(path = fcp_path_join(dst, op->name)))
				return -ENOMEM;
			op->dst_existed = fcp_sys_statx(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW,
							STATX_BASIC_STATS, &op->dst_st) == 0;
			free(path);
		}
		bool missing = false;

		for (int j = s; j < e && round > 1; j++) {
			ops[idx[j]].merges = !ops[idx[j]].repeat && ops[idx[j]].name;
			missing |= ops[idx[j]].merges && !ops[idx[j]].stat_ok;
		}
		for (int j = s; j < e && missing; j++)
			ops[idx[j]].sibling_missing = ops[idx[j]].merges && ops[idx[j]].stat_ok;
		if (round - 1 > last)
			last = round - 1;
	}
	return last;
}

int fcp_operands_plan(struct fcp_job *job, struct fcp_operand *ops, int n, const char *dst)
{
	int *idx = malloc((n ? n : 1) * sizeof(*idx)), last;

	if (!idx)
		return -ENOMEM;
	for (int i = 0; i < n; i++)
		idx[i] = i;
	qsort_r(idx, n, sizeof(*idx), by_inode, ops);
	find_repeats(ops, idx, n);
	qsort_r(idx, n, sizeof(*idx), by_name, ops);
	last = number_rounds(ops, idx, n, dst);
	free(idx);
	for (int i = 0; i < n; i++)
		if (ops[i].repeat)
			fcp_report_errorf(job, "warning: source %s '%s' specified more than once",
					  S_ISDIR(ops[i].st.stx_mode) ? "directory" : "file", ops[i].src);
	return last;
}

bool fcp_operand_just_created(const struct fcp_operand *op, const struct statx *now)
{
	if (op->round == 0 || !now)
		return false;
	return !op->dst_existed || !fcp_statx_same_inode(&op->dst_st, now);
}

/* A copy that is a directory (only a directory holds a source), by inode. */
struct root_ino {
	uint64_t dev, ino;
	int op;
};

static int by_root_ino(const void *a, const void *b)
{
	const struct root_ino *x = a, *y = b;
	int c = cmp_u64(x->dev, y->dev);

	c = c ? c : cmp_u64(x->ino, y->ino);
	return c ? c : x->op - y->op;
}

/* The copies that exist now as directories: one that does not exist yet
 * holds no source. Its last component is not followed, as the copy does
 * not follow it. */
static size_t root_inodes(char *const *roots, int n, struct root_ino *v)
{
	size_t k = 0;
	struct statx st;

	for (int i = 0; i < n; i++)
		if (roots[i] && fcp_sys_statx(AT_FDCWD, roots[i], AT_SYMLINK_NOFOLLOW,
					      STATX_BASIC_STATS, &st) == 0 && S_ISDIR(st.stx_mode))
			v[k++] = (struct root_ino){ fcp_statx_dev(&st), st.stx_ino, i };
	qsort(v, k, sizeof(*v), by_root_ino);
	return k;
}

/* The first copy in v that is directory st, or NULL. */
static const struct root_ino *root_at(const struct root_ino *v, size_t k, const struct statx *st)
{
	struct root_ino key = { fcp_statx_dev(st), st->stx_ino, -1 };
	size_t lo = 0, hi = k;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (by_root_ino(&v[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < k && v[lo].dev == key.dev && v[lo].ino == key.ino ? &v[lo] : NULL;
}

/* Where a SOURCE's entries are: the directory itself, as copied (a
 * symlink not followed is an entry of its parent), else its parent. */
static int source_dir(const char *src, int sflags, bool *is_dir)
{
	struct statx st;
	char *copy, *parent;
	size_t len;
	int fd;

	*is_dir = fcp_sys_statx(AT_FDCWD, src, sflags, STATX_BASIC_STATS, &st) == 0 &&
		  S_ISDIR(st.stx_mode);
	if (*is_dir)
		return fcp_sys_openat(AT_FDCWD, src, O_PATH | O_DIRECTORY, 0);
	if (!(copy = strdup(src)))
		return -ENOMEM;
	for (len = strlen(copy); len > 1 && copy[len - 1] == '/';)
		copy[--len] = 0;
	parent = dirname(copy);
	fd = fcp_sys_openat(AT_FDCWD, parent, O_PATH | O_DIRECTORY, 0);
	free(copy);
	return fd;
}

/* Say why ops[i] is refused: it is inside roots[j], ops[j]'s copy. */
static void refuse_inside(struct fcp_job *job, const struct fcp_operand *ops, int i,
			  char *const *roots, const char *dst, bool into, int j)
{
	const char *verb = job->o->move ? "move" : "copy";
	const char *to = into || job->o->parents ? roots[j] : dst;

	if (j == i)
		fcp_report_errorf(job, "cannot %s '%s' to '%s': the source is inside its own copy, "
				  "whose files would replace or delete it before they are read",
				  verb, ops[i].src, to);
	else
		fcp_report_errorf(job, "cannot %s '%s': it is inside '%s', the copy of '%s', whose "
				  "files would replace or delete it before they are read",
				  verb, ops[i].src, to, ops[j].src);
}

/* The copy that ops[i] is inside, or -1: walks up from its directory. */
static int inside_which(const struct fcp_operand *ops, int i, const struct root_ino *v, size_t k,
			int sflags)
{
	bool is_dir;
	int fd = source_dir(ops[i].src, sflags, &is_dir), found = -1;
	struct statx cur, up;

	/* One statx a level: the one of ".." is the next level's. */
	if (fd >= 0 && fcp_sys_fstatx(fd, &cur) < 0) {
		close(fd);
		return -1;
	}
	for (int level = 0; fd >= 0 && found < 0; level++) {
		const struct root_ino *r;
		int next;

		/* Its own copy is left to prepare's refusals: a directory
		 * onto itself is "the same file", a file onto a directory
		 * above it cannot "overwrite directory". */
		for (r = root_at(v, k, &cur); r && r < v + k && r->dev == fcp_statx_dev(&cur) &&
					      r->ino == cur.stx_ino && found < 0; r++)
			if (r->op != i || (is_dir && level > 0))
				found = r->op;
		next = fcp_sys_openat(fd, "..", O_PATH | O_DIRECTORY, 0);
		close(fd);
		fd = next;
		if (fd >= 0 && fcp_sys_fstatx(fd, &up) < 0)
			break;
		if (fd >= 0 && fcp_statx_same_inode(&up, &cur))
			break; /* ".." of the root is the root */
		cur = up;
	}
	if (fd >= 0)
		close(fd);
	return found;
}

bool fcp_operands_inside_copy(struct fcp_job *job, const struct fcp_operand *ops, int n,
			      char *const *roots, const char *dst, bool into, int sflags)
{
	struct root_ino *v = malloc((n ? n : 1) * sizeof(*v));
	size_t k;
	bool any = false;

	if (!v) {
		fcp_report_errorf(job, "out of memory");
		return true;
	}
	k = root_inodes(roots, n, v);
	for (int i = 0; i < n && k; i++) {
		int j = inside_which(ops, i, v, k, sflags);

		if (j >= 0) {
			refuse_inside(job, ops, i, roots, dst, into, j);
			any = true;
		}
	}
	free(v);
	return any;
}
