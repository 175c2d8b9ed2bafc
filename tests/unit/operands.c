/* Unit tests for the planning of several operands into one DEST: which
 * are the same source named again, and in which round each is copied. */
#include "check.h"
#include "core/node.h"
#include "face/operands.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void join(const char *dir, const char *name, const char *want)
{
	char *got = fcp_path_join(dir, name);
	CHECK_STR(got, want);
	free(got);
}

/* Plan the operands srcs (NULL-terminated) as job.c does, with their
 * basenames as names; messages go to a memory stream. */
static struct fcp_operand ops[16];
static char msgs[4096];

static int plan(const char **srcs)
{
	struct fcp_options o;
	struct fcp_job job = { .o = &o };
	int n = 0, last;

	fcp_options_init(&o);
	memset(ops, 0, sizeof(ops));
	job.err = fmemopen(msgs, sizeof(msgs), "w");
	pthread_mutex_init(&job.err_lock, NULL);
	for (; srcs[n]; n++) {
		char *copy = strdup(srcs[n]), *slash;
		size_t len = strlen(copy);

		while (len > 1 && copy[len - 1] == '/')
			copy[--len] = 0;
		slash = strrchr(copy, '/');
		ops[n].src = srcs[n];
		ops[n].name = strdup(slash ? slash + 1 : copy);
		ops[n].stat_ok = statx(AT_FDCWD, srcs[n], AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS,
				       &ops[n].st) == 0;
		free(copy);
	}
	last = fcp_operands_plan(&job, ops, n, "out");
	fclose(job.err);
	for (int i = 0; i < n; i++)
		free(ops[i].name);
	return last;
}

int main(void)
{
	char dir[] = "/tmp/fcp-unit-operands.XXXXXX";

	join("out", "d", "out/d");
	join("out/", "d", "out/d");
	join("out//", "d", "out/d");
	join("a//b", "d", "a//b/d");
	join("/", "d", "/d");
	join("//", "d", "/d");
	join("", "d", "d");
	join("out", "", "out");
	join("out//", "", "out/");

	if (!mkdtemp(dir) || chdir(dir) < 0) {
		printf("SKIP: cannot make %s\n", dir);
		return 77;
	}
	CHECK(system("mkdir -p a b d1/x d2/x d/e out && echo A >a/f && echo B >b/f && "
		     "ln -s . here && ln a/f b/g && echo C >b/x") == 0);

	/* Names of their own: all in round 0, nothing repeated. */
	CHECK(plan((const char *[]){ "a/f", "b/g", "d", NULL }) == 0);
	CHECK(!ops[0].repeat && !ops[1].repeat && !ops[2].repeat);
	CHECK_STR(msgs, "");

	/* The same name: command-line order, one round each. */
	CHECK(plan((const char *[]){ "a/f", "b/f", NULL }) == 1);
	CHECK(ops[0].round == 0 && ops[1].round == 1 && !ops[1].repeat);
	CHECK(!ops[1].dst_existed);
	CHECK(plan((const char *[]){ "b/f", "d1/x", "a/f", "d2/x", "b/x", NULL }) == 2);
	CHECK(ops[0].round == 0 && ops[2].round == 1);
	CHECK(ops[1].round == 0 && ops[3].round == 1 && ops[4].round == 2);

	/* The same source again: skipped with cp's warning, the first kept. */
	CHECK(plan((const char *[]){ "d", "d/", "here/d", "./d", NULL }) == 0);
	CHECK(!ops[0].repeat && ops[1].repeat && ops[2].repeat && ops[3].repeat);
	CHECK(strstr(msgs, "warning: source directory 'd/' specified more than once\n") != NULL);
	CHECK(strstr(msgs, "warning: source directory './d' specified more than once\n") != NULL);
	CHECK(plan((const char *[]){ "a/f", "./a/f", "here/a/f", NULL }) == 0);
	CHECK(!ops[0].repeat && ops[1].repeat && ops[2].repeat);
	CHECK(strstr(msgs, "warning: source file './a/f' specified more than once\n") != NULL);
	/* A directory under another name is still the same directory. */
	CHECK(plan((const char *[]){ "d/e", "d/e/.", NULL }) == 0);
	CHECK(ops[1].repeat);
	/* One inode under two entries of different directories: two sources
	 * with the same name (cp refuses the second). */
	CHECK(system("ln a/f d1/f") == 0);
	CHECK(plan((const char *[]){ "a/f", "d1/f", NULL }) == 1);
	CHECK(!ops[1].repeat && ops[1].round == 1);
	/* A repeat takes no round: the next of the name gets the next one. */
	CHECK(plan((const char *[]){ "a/f", "a/f", "b/f", NULL }) == 1);
	CHECK(ops[1].repeat && ops[2].round == 1);

	/* What was at DEST/name before the job is not "just created". */
	CHECK(system("echo old >out/f") == 0);
	CHECK(plan((const char *[]){ "a/f", "b/f", NULL }) == 1);
	CHECK(ops[1].dst_existed && !fcp_operand_just_created(&ops[1], &ops[1].dst_st));
	CHECK(fcp_operand_just_created(&ops[1], &ops[0].st));
	CHECK(!fcp_operand_just_created(&ops[1], NULL));
	CHECK(!fcp_operand_just_created(&ops[0], &ops[0].st));

	CHECK(chdir("/") == 0);
	snprintf(msgs, sizeof(msgs), "rm -rf %s", dir);
	CHECK(system(msgs) == 0);
	CHECK_DONE();
}
