/*
 * stats.c - the end-of-job summary.
 */
#include "core/job.h"
#include "base/json.h"
#include "core/observe.h"
#include "base/sys.h"

#include <errno.h>

#include <string.h>

static void human(double bytes, char *buf, size_t len)
{
	const char *unit[] = { "B", "KB", "MB", "GB", "TB" };
	int u = 0;

	while (bytes >= 1000 && u < 4) {
		bytes /= 1000;
		u++;
	}
	snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", bytes, unit[u]);
}

/* The plural ending that agrees with n ("1 file", "2 files"). */
static const char *s_(uint64_t n)
{
	return n == 1 ? "" : "s";
}

/* The figures copiers are compared by (the Robocopy-vs-XCopy report's
 * performance counters): data by how it got there, items left out, I/O
 * calls, CPU over wall time, peak memory; then the first errors again,
 * which a long copy has scrolled away. (What the filters left out has a
 * line of its own, above.) */
static void print_counters(const struct fcp_stats *s, FILE *f, double secs)
{
	char copied[32], cloned[32], holes[32], rss[32];

	human((double)(s->bytes - s->bytes_cloned), copied, sizeof(copied));
	human((double)s->bytes_cloned, cloned, sizeof(cloned));
	human((double)s->bytes_holes, holes, sizeof(holes));
	human((double)s->max_rss_kb * 1000, rss, sizeof(rss));
	fprintf(f, "fastcp: data: %s copied, %s cloned, %s of holes not written; "
		   "%llu skipped, %llu failed\n",
		copied, cloned, holes, (unsigned long long)s->skipped,
		(unsigned long long)s->failed);
	fprintf(f, "fastcp: %llu I/O operations (%.0f/s); CPU %.0f%% (user %.2f s, system "
		   "%.2f s); peak memory %s\n",
		(unsigned long long)s->io_ops, s->io_ops / secs,
		100 * (s->cpu_user + s->cpu_system) / secs, s->cpu_user, s->cpu_system, rss);
	for (int i = 0; i < FCP_ERRORS_KEPT && s->errors[i][0]; i++)
		fprintf(f, "%s%s\n", i ? "  " : "fastcp: the first errors again:\n  ",
			s->errors[i]);
}

/* Where the read-back of --verify came from: a file on tmpfs or ramfs
 * has no storage but the memory the copy was written to. */
static void print_verified(const struct fcp_stats *s, FILE *f)
{
	uint64_t mem = s->verified_memory, n = s->verified_files;
	char size[32];

	human((double)s->verified_bytes, size, sizeof(size));
	fprintf(f, "fastcp: verified %llu file%s (%s) ", (unsigned long long)n, s_(n), size);
	if (!mem)
		fputs("read back from storage\n", f);
	else if (mem == n)
		fputs("read back from memory: the destination (tmpfs or ramfs) keeps them "
		      "nowhere else\n", f);
	else
		fprintf(f, "read back: %llu from storage, %llu from memory (tmpfs or ramfs)\n",
			(unsigned long long)(n - mem), (unsigned long long)mem);
}

void fcp_stats_print(const struct fcp_stats *s, FILE *f)
{
	double secs = s->seconds > 1e-6 ? s->seconds : 1e-6;
	char size[32], rate[32];

	if (s->check) { /* nothing copied: what was found */
		fprintf(f, "fastcp: check: %llu difference%s in %.2f s; %llu hash%s from the "
			   "manifest (those files not read)", (unsigned long long)s->differences,
			s_(s->differences), s->seconds, (unsigned long long)s->hashed_trusted,
			s->hashed_trusted == 1 ? "" : "es");
		/* A file that could not be compared is not a file found equal. */
		if (s->uncompared)
			fprintf(f, "; %llu file%s not compared (no hash recorded)",
				(unsigned long long)s->uncompared, s_(s->uncompared));
		fputc('\n', f);
		return;
	}

	human((double)s->bytes, size, sizeof(size));
	human(s->bytes / secs, rate, sizeof(rate));
	fprintf(f, "fastcp: copied %llu file%s (%s), %llu director%s, %llu symlink%s, "
		   "%llu hard link%s, %llu special file%s in %.2f s: %s/s, %.0f files/s "
		   "(%d thread%s, %s)\n",
		(unsigned long long)s->files, s_(s->files), size, (unsigned long long)s->dirs,
		s->dirs == 1 ? "y" : "ies", (unsigned long long)s->symlinks, s_(s->symlinks),
		(unsigned long long)s->hardlinks, s_(s->hardlinks),
		(unsigned long long)s->specials, s_(s->specials), s->seconds, rate,
		s->files / secs, s->threads, s_(s->threads), s->io_path ? s->io_path : "sync");
	/* A dry run's counts are its closing line's (fcp_stats_print_plan). */
	if (!s->dry_run && (s->unchanged || s->updated || s->deleted || s->backed_up))
		fprintf(f, "fastcp: %llu unchanged, %llu with metadata updated, %llu deleted",
			(unsigned long long)s->unchanged, (unsigned long long)s->updated,
			(unsigned long long)s->deleted);
	if (!s->dry_run && s->backed_up)
		fprintf(f, ", %llu renamed to backup names (-b)", (unsigned long long)s->backed_up);
	if (!s->dry_run && (s->unchanged || s->updated || s->deleted || s->backed_up))
		fputc('\n', f);
	if (s->not_replaced)
		fprintf(f, "fastcp: %llu file%s kept where %s already (-n, -u or -i)\n",
			(unsigned long long)s->not_replaced, s_(s->not_replaced),
			s->not_replaced == 1 ? "it was" : "they were");
	if (s->excluded)
		fprintf(f, "fastcp: %llu excluded (left out by a filter)\n",
			(unsigned long long)s->excluded);
	if (s->moved)
		fprintf(f, "fastcp: %llu source item%s moved (renamed, or removed after their copy)\n",
			(unsigned long long)s->moved, s_(s->moved));
	if (s->cloned_files && s->verified_cloned)
		fprintf(f, "fastcp: %llu file%s cloned, verified by re-reading shared extents\n",
			(unsigned long long)s->verified_cloned, s_(s->verified_cloned));
	if (s->cloned_files > s->verified_cloned)
		fprintf(f, "fastcp: %llu file%s cloned (reflink)\n",
			(unsigned long long)(s->cloned_files - s->verified_cloned),
			s_(s->cloned_files - s->verified_cloned));
	if (s->dedup_files) {
		human((double)s->dedup_bytes, size, sizeof(size));
		if (s->dedup == FCP_DEDUP_HARDLINK)
			fprintf(f, "fastcp: deduplicated %llu file%s as hard links (%s saved): each "
				   "shares its first copy's inode and metadata\n",
				(unsigned long long)s->dedup_files, s_(s->dedup_files), size);
		else
			fprintf(f, "fastcp: deduplicated %llu file%s (%s saved): clones of their "
				   "first copy\n", (unsigned long long)s->dedup_files,
				s_(s->dedup_files), size);
	}
	if (s->verified_files)
		print_verified(s, f);
	if (s->symlinks || s->skipped)
		fprintf(f, "fastcp: symlinks: %llu internal, %llu external; %llu relative, "
			   "%llu absolute; %llu rewritten, %llu skipped\n",
			(unsigned long long)s->links_internal, (unsigned long long)s->links_external,
			(unsigned long long)s->links_relative, (unsigned long long)s->links_absolute,
			(unsigned long long)s->links_rewritten, (unsigned long long)s->skipped);
	print_counters(s, f, secs);
}

bool fcp_stats_changed(const struct fcp_stats *s)
{
	if (s->check)
		return false;
	if (s->dry_run)
		return s->plan_copied || s->plan_replaced || s->updated || s->deleted ||
		       s->backed_up;
	return s->files || s->dirs || s->symlinks || s->specials || s->hardlinks || s->updated ||
	       s->deleted || s->backed_up || s->moved;
}

/* "entries", and of which kinds (those there are): the count is not read
 * as the files alone. */
static void print_kinds(const struct fcp_stats *s, FILE *f)
{
	static const char *const one[5] = { "file", "directory", "symlink", "hard link",
					    "special file" },
			  *const many[5] = { "files", "directories", "symlinks", "hard links",
					     "special files" };
	const char *sep = "";

	for (int k = 0; k < 5; k++) {
		if (!s->plan_kind[k])
			continue;
		fprintf(f, "%s%llu %s", sep, (unsigned long long)s->plan_kind[k],
			s->plan_kind[k] == 1 ? one[k] : many[k]);
		sep = ", ";
	}
	if (*sep)
		fputs("; ", f);
}

void fcp_stats_print_plan(const struct fcp_stats *s, FILE *f)
{
	char copy[32], update[32];

	human((double)s->plan_copied_bytes, copy, sizeof(copy));
	human((double)s->plan_replaced_bytes, update, sizeof(update));
	fprintf(f, "fastcp: dry run, nothing changed: would copy %llu entr%s (",
		(unsigned long long)s->plan_copied, s->plan_copied == 1 ? "y" : "ies");
	print_kinds(s, f);
	fprintf(f, "%s), update %llu (%s), update metadata of %llu, delete %llu", copy,
		(unsigned long long)s->plan_replaced, update, (unsigned long long)s->updated,
		(unsigned long long)s->deleted);
	if (s->backed_up)
		fprintf(f, ", rename %llu to backup names (-b)", (unsigned long long)s->backed_up);
	if (s->plan_moved)
		fprintf(f, "; would take %llu entr%s out of SOURCE (--move: copied, replaced or "
			"already in place; its directories as they empty)",
			(unsigned long long)s->plan_moved, s->plan_moved == 1 ? "y" : "ies");
	fputc('\n', f);
}

/* One row of the table: a count, or "-" where the run did not count it. */
static void cell(FILE *f, long long n, bool bytes)
{
	char b[32];

	if (n < 0)
		snprintf(b, sizeof(b), "-");
	else if (bytes)
		human((double)n, b, sizeof(b));
	else
		snprintf(b, sizeof(b), "%lld", n);
	fprintf(f, "%10s", b);
}

static void row(FILE *f, const char *name, const long long v[6], bool bytes)
{
	fprintf(f, "fastcp: %-11s", name);
	for (int i = 0; i < 6; i++)
		cell(f, v[i], bytes);
	fputc('\n', f);
}

/*
 * As robocopy's: copied is what was written (new, updated, or its
 * metadata alone); skipped what was found up to date or kept (-n, -u);
 * failed what failed or was not started (items of every type: a failure
 * is not always of a known type); extras what DEST held beyond the source,
 * known only where --delete looked (else "-"), of which deleted.
 */
void fcp_stats_print_table(const struct fcp_stats *s, FILE *f)
{
	long long nf = (long long)(s->files + s->symlinks + s->specials + s->hardlinks +
				   s->updated - s->updated_dirs);
	long long sf = (long long)(s->unchanged - s->unchanged_dirs + s->not_replaced +
				   s->skipped);
	long long ff = (long long)(s->failed + s->not_copied);
	long long df = (long long)(s->deleted - s->deleted_dirs), dd = (long long)s->deleted_dirs;
	/* Extras renamed to backup names (non-directories) were extras, not
	 * deleted. */
	long long xf = df + (long long)s->backed_up;
	long long nd = (long long)(s->dirs + s->updated_dirs), sd = (long long)s->unchanged_dirs;
	long long x = s->delete_asked ? 0 : -1;
	const long long files[6] = { nf + sf + ff, nf, sf, ff, x < 0 ? -1 : xf, df },
			dirs[6] = { nd + sd, nd, sd, -1, x < 0 ? -1 : dd, dd },
			bytes[6] = { (long long)(s->bytes + s->bytes_skipped), (long long)s->bytes,
				     (long long)s->bytes_skipped, -1, -1, -1 };

	fprintf(f, "fastcp: %-11s%10s%10s%10s%10s%10s%10s\n", "", "total", "copied", "skipped",
		"failed", "extras", "deleted");
	/* Every item but directories: files, symlinks, hard links, special
	 * files, the first line's counts added up ("files" said less). */
	row(f, "entries", files, false);
	row(f, "directories", dirs, false);
	row(f, "bytes", bytes, true);
}

/* Extended attributes, ACLs and labels are counted one by one (a file
 * may have several), the other kinds once per item. */
static void print_warning(FILE *f, enum fcp_warn_kind k, uint64_t n)
{
	static const char *const one[FCP_WARN_KINDS] = {
		[FCP_WARN_XATTR] = "extended attribute", [FCP_WARN_ACL] = "ACL",
		[FCP_WARN_LABEL] = "security label",
	};

	if (one[k])
		fprintf(f, "fastcp: warning: %llu %s%s not preserved\n", (unsigned long long)n,
			one[k], s_(n));
	else
		fprintf(f, "fastcp: warning: %s not preserved on %llu item%s\n",
			fcp_warn_kind_name(k), (unsigned long long)n, s_(n));
}

/* The lines that must be seen even without --stats. */
void fcp_stats_print_problems(const struct fcp_stats *s, FILE *f)
{
	for (int k = 0; k < FCP_WARN_KINDS; k++)
		if (s->warnings[k])
			print_warning(f, k, s->warnings[k]);
	if (s->failed)
		fprintf(f, "fastcp: %llu item%s failed\n", (unsigned long long)s->failed,
			s_(s->failed));
	/* --in-place rewrites a file under its name: one the signal cut
	 * stays so, marked (file.c), for the same command to rewrite. */
	if (s->signal && s->in_place)
		fprintf(f, "fastcp: interrupted by signal %d: nothing new was started; any file "
			   "that was being rewritten in place (--in-place) is left half written "
			   "under its name; where it could be marked %s, the same command again "
			   "rewrites it\n",
			s->signal, FCP_INPLACE_MARKER);
	else if (s->signal)
		fprintf(f, "fastcp: interrupted by signal %d: nothing new was started, %s\n",
			s->signal, s->left_hidden ? "no partial file has a final name"
						  : "nothing partial was left");
	if (s->left_hidden)
		fprintf(f, "fastcp: %llu unfinished %s left under a temporary name (named above)\n",
			(unsigned long long)s->left_hidden, s->left_hidden == 1 ? "copy" : "copies");
	if (s->leftovers > FCP_LEFTOVERS_NAMED)
		fprintf(f, "fastcp: %llu leftovers of interrupted runs found (the first %d named "
			   "above), none removed\n", (unsigned long long)s->leftovers,
			FCP_LEFTOVERS_NAMED);
	if (s->dedup_uncloned)
		fprintf(f, "fastcp: note: --dedup=reflink: the destination cannot clone; %llu "
			   "duplicate file%s copied in full (--dedup=hardlink writes each content "
			   "once there, as hard links sharing their metadata)\n",
			(unsigned long long)s->dedup_uncloned, s_(s->dedup_uncloned));
	if (s->in_place_shared)
		fprintf(f, "fastcp: note: --in-place: %llu file%s with other names replaced, not "
			   "rewritten: their other names keep their data\n",
			(unsigned long long)s->in_place_shared, s_(s->in_place_shared));
	if (s->not_copied)
		fprintf(f, "fastcp: %llu item%s not copied (a directory not started counts as one)\n",
			(unsigned long long)s->not_copied, s_(s->not_copied));
}

void fcp_stats_json(const struct fcp_stats *s, struct fcp_json *j)
{
	double secs = s->seconds > 1e-6 ? s->seconds : 1e-6;
	const char *errs[FCP_ERRORS_KEPT];
	int n = 0;

	fcp_json_u64(j, "files", s->files);
	fcp_json_u64(j, "directories", s->dirs);
	fcp_json_u64(j, "symlinks", s->symlinks);
	fcp_json_open(j, "symlink_kinds");
	fcp_json_u64(j, "internal", s->links_internal);
	fcp_json_u64(j, "external", s->links_external);
	fcp_json_u64(j, "relative", s->links_relative);
	fcp_json_u64(j, "absolute", s->links_absolute);
	fcp_json_u64(j, "rewritten", s->links_rewritten);
	fcp_json_close(j);
	fcp_json_u64(j, "hard_links", s->hardlinks);
	fcp_json_u64(j, "special_files", s->specials);
	fcp_json_u64(j, "bytes", s->bytes);
	fcp_json_u64(j, "bytes_cloned", s->bytes_cloned);
	fcp_json_u64(j, "bytes_holes", s->bytes_holes);
	fcp_json_u64(j, "cloned_files", s->cloned_files);
	fcp_json_u64(j, "skipped", s->skipped);
	fcp_json_u64(j, "excluded", s->excluded);
	fcp_json_u64(j, "failed", s->failed);
	fcp_json_u64(j, "not_copied", s->not_copied);
	fcp_json_u64(j, "unchanged", s->unchanged);
	fcp_json_u64(j, "updated", s->updated);
	fcp_json_u64(j, "deleted", s->deleted);
	fcp_json_u64(j, "backed_up", s->backed_up);
	fcp_json_u64(j, "moved", s->moved);
	fcp_json_u64(j, "verified_files", s->verified_files);
	fcp_json_u64(j, "verified_bytes", s->verified_bytes);
	fcp_json_u64(j, "verified_cloned", s->verified_cloned);
	fcp_json_u64(j, "verified_in_memory", s->verified_memory);
	fcp_json_u64(j, "deduplicated_files", s->dedup_files);
	fcp_json_u64(j, "bytes_saved", s->dedup_bytes);
	fcp_json_bool(j, "check", s->check);
	fcp_json_u64(j, "differences", s->differences);
	fcp_json_u64(j, "hashed_trusted", s->hashed_trusted);
	fcp_json_u64(j, "not_compared", s->uncompared);
	fcp_json_u64(j, "left_hidden", s->left_hidden);
	fcp_json_u64(j, "leftovers", s->leftovers);
	while (n < FCP_ERRORS_KEPT && s->errors[n][0]) {
		errs[n] = s->errors[n];
		n++;
	}
	fcp_json_strs(j, "errors", errs, n);
	static const char *const warn_key[FCP_WARN_KINDS] = {
		[FCP_WARN_OWNER] = "ownership", [FCP_WARN_XATTR] = "xattrs",
		[FCP_WARN_ACL] = "acls", [FCP_WARN_LABEL] = "labels",
		[FCP_WARN_TIMES] = "timestamps", [FCP_WARN_MODE] = "permissions",
	};
	fcp_json_open(j, "warnings");
	for (int k = 0; k < FCP_WARN_KINDS; k++)
		fcp_json_u64(j, warn_key[k], s->warnings[k]);
	fcp_json_close(j);
	fcp_json_num(j, "seconds", s->seconds);
	fcp_json_num(j, "bytes_per_second", s->bytes / secs);
	fcp_json_num(j, "files_per_second", s->files / secs);
	fcp_json_u64(j, "io_operations", s->io_ops);
	fcp_json_num(j, "io_per_second", s->io_ops / secs);
	fcp_json_num(j, "cpu_user_seconds", s->cpu_user);
	fcp_json_num(j, "cpu_system_seconds", s->cpu_system);
	fcp_json_num(j, "cpu_percent", 100 * (s->cpu_user + s->cpu_system) / secs);
	fcp_json_u64(j, "max_rss_kb", (uint64_t)s->max_rss_kb);
	fcp_json_u64(j, "threads", (uint64_t)s->threads);
	fcp_json_str(j, "io_path", s->io_path ? s->io_path : "sync");
	/* --check runs as a dry run (job.c); its reader asked for a check. */
	fcp_json_bool(j, "dry_run", s->dry_run && !s->check);
	/* Whether DEST was changed (in a dry run: would be), as robocopy's
	 * exit codes tell; scripts test it rather than every count. */
	fcp_json_bool(j, "changed", fcp_stats_changed(s));
	fcp_json_u64(j, "replaced", s->replaced);
	fcp_json_u64(j, "bytes_skipped", s->bytes_skipped);
	fcp_json_u64(j, "unchanged_directories", s->unchanged_dirs);
	fcp_json_u64(j, "updated_directories", s->updated_dirs);
	fcp_json_u64(j, "deleted_directories", s->deleted_dirs);
	if (s->dry_run) {
		fcp_json_u64(j, "would_copy", s->plan_copied);
		fcp_json_u64(j, "would_copy_bytes", s->plan_copied_bytes);
		fcp_json_u64(j, "would_update", s->plan_replaced);
		fcp_json_u64(j, "would_update_bytes", s->plan_replaced_bytes);
		fcp_json_u64(j, "would_move", s->plan_moved);
	}
	fcp_json_u64(j, "signal", (uint64_t)s->signal);
}

int fcp_stats_print_json(const struct fcp_stats *s, FILE *f)
{
	struct fcp_json j;
	int r;

	fcp_json_init(&j);
	fcp_json_open(&j, NULL);
	fcp_stats_json(s, &j);
	fcp_json_close(&j);
	fcp_json_raw(&j, "\n");
	/* What f holds goes first; the object then goes whole, or not. */
	r = fflush(f) == EOF ? -EIO : j.oom ? -ENOMEM : fcp_sys_write_line(fileno(f), j.p, j.len);
	fcp_json_free(&j);
	return r;
}
