/*
 * balance.c - moving work between ranks while the copy runs.
 *
 * Each rank runs one thread beside its workers; it alone calls MPI while
 * the workers copy (MPI_THREAD_SERIALIZED suffices: the main thread calls
 * MPI only between phases, when this thread is not running).
 *
 * Rank 0's thread also coordinates. A rank with nothing left asks it for
 * work (REQ) once, and waits. For each rank waiting, rank 0 picks a busy
 * rank (the victim) and sends it STEAL naming the thief; the victim takes
 * up to GIVE_MAX units of queued work off its own queues (the oldest
 * first: directories near the top, whole subtrees) and sends them to the
 * thief (WORK), then tells rank 0 how many it gave (GIVE). A victim with
 * nothing to give is not asked again for RETRY_NS. A thief given nothing
 * stays waiting.
 *
 * A victim with no directory or batch queued may give part of a large
 * file it is copying (lib/dist/dist_chunk.c): the thief copies it, then sends
 * its result (RESULT) to the file's owner, which counts busy (does not
 * ask) until every part it gave came back.
 *
 * Termination: rank 0 declares it (DONE, to every rank) when every rank
 * waits and no STEAL is unanswered. A rank waits only after it asked; it
 * asks again only after WORK came; a victim sends WORK before it answers
 * rank 0, and rank 0 counts the thief busy from the STEAL on: so while
 * any work exists or travels, some rank is counted busy.
 */
#include "balance.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { TAG_REQ = 101, TAG_STEAL, TAG_WORK, TAG_GIVE, TAG_DONE, TAG_RESULT };

#define GIVE_MAX 8
#define RETRY_NS 2000000LL      /* before asking an empty victim again */
#define POLL_MIN_NS 20000L      /* idle polling: from this ... */
#define POLL_MAX_NS 1000000L    /* ... backing off to this */

struct pending_send {
	MPI_Request req;
	void *buf;
};

struct balancer {
	MPI_Comm comm;
	int rank, size;
	struct fcp_job *job;
	bool asked, done;
	bool ended;             /* rank 0: DONE is sent */
	struct pending_send *sends;
	int nsends, cap_sends;
	/* rank 0's view */
	bool *waiting;          /* asked, and nothing known to be on its way */
	bool *stealing;         /* a STEAL to it is unanswered */
	long long *empty_at;    /* when it last had nothing to give */
	int next_victim;
};

static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* Send without waiting; buf (malloc'd, or NULL) is freed once sent. */
static void post(struct balancer *b, int to, int tag, void *buf, size_t len)
{
	if (b->nsends == b->cap_sends) {
		int cap = b->cap_sends ? 2 * b->cap_sends : 16;
		struct pending_send *v = realloc(b->sends, cap * sizeof(*v));
		if (!v)
			MPI_Abort(b->comm, 1);
		b->sends = v;
		b->cap_sends = cap;
	}
	if (len > INT32_MAX)
		MPI_Abort(b->comm, 1); /* GIVE_MAX units never come near */
	b->sends[b->nsends].buf = buf;
	MPI_Isend(buf, (int)len, MPI_BYTE, to, tag, b->comm, &b->sends[b->nsends].req);
	b->nsends++;
}

static void reap_sends(struct balancer *b, bool wait)
{
	for (int i = 0; i < b->nsends;) {
		int flag = 0;

		if (wait)
			MPI_Wait(&b->sends[i].req, MPI_STATUS_IGNORE), flag = 1;
		else
			MPI_Test(&b->sends[i].req, &flag, MPI_STATUS_IGNORE);
		if (flag) {
			free(b->sends[i].buf);
			b->sends[i] = b->sends[--b->nsends];
		} else {
			i++;
		}
	}
}

static void *int_msg(int v)
{
	int *p = malloc(sizeof(*p));

	if (p)
		*p = v;
	return p;
}

/* A victim's side of a STEAL for thief: its units to the thief, then
 * their number to rank 0 (in that order: see the top of this file). */
static void on_steal(struct balancer *b, int thief)
{
	char *buf;
	size_t len;
	int n = fcp_dist_give(b->job, GIVE_MAX, &buf, &len);

	if (n > 0)
		post(b, thief, TAG_WORK, buf, len);
	else
		free(buf);
	/* thief, or -1 - thief: given nothing, it waits on */
	post(b, 0, TAG_GIVE, int_msg(n > 0 ? thief : -1 - thief), sizeof(int));
}

/* Rank 0: a STEAL for every waiting rank, from a busy rank that may have
 * something; when every rank waits and nothing is asked, the end. */
static void coordinate(struct balancer *b)
{
	long long t = now_ns();
	bool all = true, asking = false;

	for (int r = 0; r < b->size; r++) {
		all &= b->waiting[r];
		asking |= b->stealing[r];
	}
	if (b->ended)
		return;
	if (all && !asking) {
		for (int r = 0; r < b->size; r++)
			post(b, r, TAG_DONE, NULL, 0);
		b->ended = true;
		return;
	}
	for (int thief = 0; thief < b->size; thief++) {
		if (!b->waiting[thief])
			continue;
		for (int k = 0; k < b->size; k++) {
			int v = (b->next_victim + k) % b->size;

			if (b->waiting[v] || b->stealing[v] || t - b->empty_at[v] < RETRY_NS)
				continue;
			b->next_victim = (v + 1) % b->size;
			b->stealing[v] = true;
			b->waiting[thief] = false;
			post(b, v, TAG_STEAL, int_msg(thief), sizeof(int));
			break;
		}
	}
}

/* One message, whatever it is; false when none was there. */
static bool receive(struct balancer *b)
{
	MPI_Status st;
	int flag = 0, len, v = -1;
	char *buf;

	MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, b->comm, &flag, &st);
	if (!flag)
		return false;
	MPI_Get_count(&st, MPI_BYTE, &len);
	buf = malloc(len ? len : 1);
	if (!buf)
		MPI_Abort(b->comm, 1);
	MPI_Recv(buf, len, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, b->comm, MPI_STATUS_IGNORE);
	if (len >= (int)sizeof(int))
		memcpy(&v, buf, sizeof(int));
	switch (st.MPI_TAG) {
	case TAG_WORK:
		if (fcp_dist_take(b->job, buf, len) < 0)
			MPI_Abort(b->comm, 1); /* another build's units: nothing to trust */
		b->asked = false;
		break;
	case TAG_STEAL:
		on_steal(b, v);
		break;
	case TAG_RESULT:
		if (fcp_dist_result(b->job, buf, len) < 0)
			MPI_Abort(b->comm, 1);
		break;
	case TAG_DONE:
		b->done = true;
		break;
	case TAG_REQ:
		b->waiting[st.MPI_SOURCE] = true;
		break;
	case TAG_GIVE: /* v: the thief given to, or -1 - thief */
		b->stealing[st.MPI_SOURCE] = false;
		if (v < 0) {
			b->empty_at[st.MPI_SOURCE] = now_ns();
			if (-1 - v < b->size)
				b->waiting[-1 - v] = true;
		}
		break;
	}
	free(buf);
	return true;
}

static void *run(void *arg)
{
	struct balancer *b = arg;
	long nap = POLL_MIN_NS;
	char *rbuf;
	size_t rlen;

	while (!b->done) {
		bool busy = false;

		while (!b->done && receive(b))
			busy = true;
		if (b->done)
			break;
		/* Parts of other ranks' files done here: their owners wait
		 * for them (and count busy until then, so no DONE can come
		 * before). */
		for (int to; fcp_dist_results(b->job, &to, &rbuf, &rlen) > 0; busy = true)
			post(b, to, TAG_RESULT, rbuf, rlen);
		if (!b->asked && fcp_dist_idle(b->job)) {
			b->asked = true;
			post(b, 0, TAG_REQ, NULL, 0);
			busy = true;
		}
		if (b->rank == 0)
			coordinate(b);
		reap_sends(b, false);
		/* Polled: a blocking receive would hold this core, and a
		 * two-core machine has none to spare. */
		nap = busy ? POLL_MIN_NS : nap * 2 < POLL_MAX_NS ? nap * 2 : POLL_MAX_NS;
		if (!busy)
			nanosleep(&(struct timespec){ 0, nap }, NULL);
	}
	reap_sends(b, true);
	fcp_dist_end(b->job);
	return NULL;
}

struct fcp_balance {
	struct balancer b;
	pthread_t thread;
};

struct fcp_balance *fcp_balance_start(MPI_Comm comm, struct fcp_job *job)
{
	struct fcp_balance *x = calloc(1, sizeof(*x));
	struct balancer *b = x ? &x->b : NULL;

	if (!x)
		MPI_Abort(comm, 1);
	b->comm = comm;
	b->job = job;
	MPI_Comm_rank(comm, &b->rank);
	MPI_Comm_size(comm, &b->size);
	if (b->rank == 0) {
		b->waiting = calloc(b->size, sizeof(*b->waiting));
		b->stealing = calloc(b->size, sizeof(*b->stealing));
		b->empty_at = calloc(b->size, sizeof(*b->empty_at));
		if (!b->waiting || !b->stealing || !b->empty_at)
			MPI_Abort(comm, 1);
	}
	if (pthread_create(&x->thread, NULL, run, b))
		MPI_Abort(comm, 1); /* the others would wait for it forever */
	return x;
}

void fcp_balance_join(struct fcp_balance *x)
{
	pthread_join(x->thread, NULL);
	free(x->b.waiting);
	free(x->b.stealing);
	free(x->b.empty_at);
	free(x->b.sends);
	free(x);
}
