/* racy.c - fcp_statx_racy (job.h): when a file's times could hide a change
 * made after they were read. */
#include "check.h"
#include "core/job.h"

static struct statx at(long long sec, unsigned nsec)
{
	struct statx st = { .stx_mask = STATX_BASIC_STATS };

	st.stx_ctime.tv_sec = sec;
	st.stx_ctime.tv_nsec = nsec;
	st.stx_mtime = st.stx_ctime;
	return st;
}

int main(void)
{
	struct timespec began = { .tv_sec = 2000000000, .tv_nsec = 500000000 };
	struct statx st;

	/* Old, with nanoseconds: its times show any later change. */
	st = at(1000000000, 123456789);
	CHECK(!fcp_statx_racy(&st, &began));
	/* An archive's whole-second mtime with a fine ctime: not racy. */
	st.stx_mtime.tv_nsec = 0;
	CHECK(!fcp_statx_racy(&st, &began));
	/* A ctime of whole seconds: a filesystem of coarse times (FAT). */
	st = at(1000000000, 0);
	CHECK(fcp_statx_racy(&st, &began));
	/* No ctime given at all. */
	st = at(1000000000, 123456789);
	st.stx_mask &= ~STATX_CTIME;
	CHECK(fcp_statx_racy(&st, &began));
	/* Within 2 s before the job began, or after it. */
	st = at(1999999998, 600000000);
	CHECK(fcp_statx_racy(&st, &began));
	st = at(1999999998, 400000000);
	CHECK(!fcp_statx_racy(&st, &began));
	st = at(2000000100, 1);
	CHECK(fcp_statx_racy(&st, &began));
	CHECK_DONE();
}
