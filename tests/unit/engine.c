/* Unit tests for the engine plan (policy -> engine order) and the fallback
 * decision, and for the fallback itself: a clone between a file and a pipe
 * is refused by the kernel and must land on the next engine. And the order
 * of a rotational source's reads: the picked files, those of unknown place
 * first in their given order, then by device offset, ties kept in order. */
#include "check.h"
#include "engine/engine.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* memfd (tmpfs) -> a file in /tmp: clone and copy_file_range both refuse
 * across these filesystems, so the data must arrive through read/write. */
static void fallback(enum fcp_reflink rl, bool expect_ok)
{
	static struct fcp_options o;
	struct fcp_job job = { 0 };
	char path[] = "/tmp/fcp-engine-XXXXXX", back[5000];
	int in = memfd_create("src", 0), out = mkstemp(path);
	bool cloned = true;
	ssize_t r;

	fcp_options_init(&o);
	o.reflink = rl;
	job.o = &o;
	memset(back, 'q', sizeof(back));
	CHECK(in >= 0 && out >= 0 && fcp_sched_create(&job, 1, 1) == 0);
	CHECK(write(in, back, sizeof(back)) == (ssize_t)sizeof(back));
	struct fcp_xfer x = { .w = fcp_sched_worker(&job, 0), .in = in, .out = out, .size = sizeof(back),
			      .allocated = sizeof(back), .src_dev = 1, .dst_dev = 2 };
	/* As file.c does: the clone first, then the copying engines. */
	r = fcp_data_clone(&x, &cloned);
	CHECK(!cloned && (r == 0) == expect_ok);
	if (r == 0)
		r = fcp_data_copy(&x);
	if (expect_ok) {
		const struct fcp_engine *l[3];
		CHECK(r == (ssize_t)sizeof(back) && !cloned);
		/* Both refusals are remembered for this pair of filesystems. */
		CHECK(fcp_engine_plan(&job, 1, 2, l) == 1 && l[0] == &fcp_engine_rw);
		CHECK(fcp_engine_plan(&job, 1, 3, l) == (rl == FCP_REFLINK_AUTO ? 3 : 1));
		memset(back, 0, sizeof(back));
		CHECK(pread(out, back, sizeof(back), 0) == (ssize_t)sizeof(back));
		CHECK(back[0] == 'q' && back[sizeof(back) - 1] == 'q');
	} else {
		CHECK(r < 0 && fcp_engine_fallback_err((int)r));
	}
	fcp_sched_destroy(&job);
	unlink(path);
	close(in);
	close(out);
}

static int plan(enum fcp_reflink rl, bool same_fs, const struct fcp_engine **l)
{
	static struct fcp_options o;
	static struct fcp_job job;

	fcp_options_init(&o);
	o.reflink = rl;
	job.o = &o;
	return fcp_engine_plan(&job, 7, same_fs ? 7 : 8, l);
}

static void order_by_place(void)
{
	const bool pick[7] = { true, true, false, true, true, true, true };
	const uint64_t where[7] = { 900, 0, 5, 100, 0, 900, 40 };
	const int want[6] = { 1, 4, 6, 3, 0, 5 };
	int order[7], m = fcp_order_by_place(pick, where, 7, order);

	CHECK(m == 6);
	for (int i = 0; i < 6 && i < m; i++)
		CHECK(order[i] == want[i]);
	CHECK(fcp_order_by_place(pick, where, 0, order) == 0);
}

int main(void)
{
	const struct fcp_engine *l[3];

	CHECK(plan(FCP_REFLINK_AUTO, false, l) == 3);
	CHECK(l[0] == &fcp_engine_clone && l[1] == &fcp_engine_range && l[2] == &fcp_engine_rw);
	CHECK(plan(FCP_REFLINK_ALWAYS, true, l) == 1 && l[0] == &fcp_engine_clone);
	/* never: copy_file_range could clone (even across btrfs subvolumes,
	 * which have different st_dev), so read/write only */
	CHECK(plan(FCP_REFLINK_NEVER, true, l) == 1 && l[0] == &fcp_engine_rw);
	CHECK(plan(FCP_REFLINK_NEVER, false, l) == 1 && l[0] == &fcp_engine_rw);

	CHECK(fcp_engine_fallback_err(-EXDEV));
	CHECK(fcp_engine_fallback_err(-EINVAL));
	CHECK(fcp_engine_fallback_err(-EOPNOTSUPP));
	CHECK(fcp_engine_fallback_err(-ENOSYS));
	CHECK(fcp_engine_fallback_err(-ETXTBSY));
	CHECK(!fcp_engine_fallback_err(-ENOSPC));
	CHECK(!fcp_engine_fallback_err(-EIO));
	CHECK(!fcp_engine_fallback_err(-EACCES));
	fallback(FCP_REFLINK_AUTO, true);
	fallback(FCP_REFLINK_NEVER, true);
	fallback(FCP_REFLINK_ALWAYS, false);
	order_by_place();
	CHECK_DONE();
}
