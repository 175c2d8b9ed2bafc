/*
 * stats.c - the end-of-job summary.
 */
#include "job.h"

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

void fcp_stats_print(const struct fcp_stats *s, FILE *f)
{
	double secs = s->seconds > 1e-6 ? s->seconds : 1e-6;
	char size[32], rate[32];

	if (s->check) { /* nothing copied: what was found */
		fprintf(f, "fastcp: check: %llu difference%s in %.2f s; %llu hash%s from the "
			   "manifest (those files not read)\n", (unsigned long long)s->differences,
			s_(s->differences), s->seconds, (unsigned long long)s->hashed_trusted,
			s->hashed_trusted == 1 ? "" : "es");
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
	if (s->dry_run)
		fprintf(f, "fastcp: dry run, nothing changed: %llu unchanged, %llu to update "
			   "metadata only, %llu to delete\n",
			(unsigned long long)s->unchanged, (unsigned long long)s->updated,
			(unsigned long long)s->deleted);
	else if (s->unchanged || s->updated || s->deleted)
		fprintf(f, "fastcp: %llu unchanged, %llu with metadata updated, %llu deleted\n",
			(unsigned long long)s->unchanged, (unsigned long long)s->updated,
			(unsigned long long)s->deleted);
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
	if (s->verified_files) {
		human((double)s->verified_bytes, size, sizeof(size));
		fprintf(f, "fastcp: verified %llu file%s (%s) read back from storage\n",
			(unsigned long long)s->verified_files, s_(s->verified_files), size);
	}
	if (s->symlinks || s->skipped)
		fprintf(f, "fastcp: symlinks: %llu internal, %llu external; %llu relative, "
			   "%llu absolute; %llu rewritten, %llu skipped\n",
			(unsigned long long)s->links_internal, (unsigned long long)s->links_external,
			(unsigned long long)s->links_relative, (unsigned long long)s->links_absolute,
			(unsigned long long)s->links_rewritten, (unsigned long long)s->skipped);
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
	if (s->signal)
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
			   "duplicate file%s copied in full\n", (unsigned long long)s->dedup_uncloned,
			s_(s->dedup_uncloned));
	if (s->not_copied)
		fprintf(f, "fastcp: %llu item%s not copied (a directory not started counts as one)\n",
			(unsigned long long)s->not_copied, s_(s->not_copied));
}
