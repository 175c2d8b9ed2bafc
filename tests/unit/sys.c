/* Unit tests for the syscall boundary (sys.c): running out of descriptors
 * is back-pressure, not a failure. With every descriptor of a low limit
 * taken, an open waits until another thread closes one, then succeeds;
 * and with none ever freed it gives up with EMFILE instead of hanging;
 * while the job is stopping (a signal), it gives up at once: in well under
 * the 5 s it waits otherwise. */
#include "check.h"
#include "base/sys.h"

#include <errno.h>
#include <pthread.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define LIMIT 64

static int spare = -1;

static void *close_later(void *arg)
{
	struct timespec t = { 0, 200 * 1000 * 1000 };

	nanosleep(&t, NULL);
	close(spare);
	return NULL;
}

int main(void)
{
	struct rlimit rl = { LIMIT, LIMIT };
	int fds[LIMIT], n = 0, fd;
	atomic_bool stop = true;
	struct timespec t0, t1;
	pthread_t th;

	if (setrlimit(RLIMIT_NOFILE, &rl) < 0) {
		printf("cannot lower RLIMIT_NOFILE\n");
		return 77;
	}
	while (n < LIMIT && (fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0)
		fds[n++] = fd;
	CHECK(n > 0 && n < LIMIT);
	spare = fds[--n];
	/* Full: this open must wait for the thread's close, not fail. */
	pthread_create(&th, NULL, close_later, NULL);
	fd = fcp_sys_openat(AT_FDCWD, "/dev/null", O_RDONLY, 0);
	pthread_join(th, NULL);
	CHECK(fd >= 0);
	/* Full again, and nobody closes: a bounded wait, then EMFILE. */
	CHECK(fcp_sys_openat(AT_FDCWD, "/dev/null", O_RDONLY, 0) == -EMFILE);
	/* Stopping: no wait at all (allowing 2 s for a loaded machine). */
	fcp_sys_watch_stop(&stop);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK(fcp_sys_openat(AT_FDCWD, "/dev/null", O_RDONLY, 0) == -EMFILE);
	CHECK(fcp_sys_dup(0) == -EMFILE);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	CHECK(t1.tv_sec - t0.tv_sec < 2);
	fcp_sys_watch_stop(NULL);
	if (fd >= 0)
		close(fd);
	while (n > 0)
		close(fds[--n]);
	CHECK_DONE();
}
