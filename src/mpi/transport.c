/*
 * transport.c - struct fcp_dist_ops over MPI: the collectives of a round's
 * phases (dist.c) and the balancing thread (balance.c).
 */
#include "balance.h"
#include "transport.h"

#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct mpi_ctx {
	MPI_Comm comm;
	int size;
	struct fcp_balance *balance;
};

static void t_bcast(void *ctx, void *buf, size_t len)
{
	struct mpi_ctx *c = ctx;

	MPI_Bcast(buf, (int)len, MPI_BYTE, 0, c->comm);
}

static void t_reduce(void *ctx, uint64_t *v, int n, bool max)
{
	struct mpi_ctx *c = ctx;

	MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_UINT64_T, max ? MPI_MAX : MPI_SUM, c->comm);
}

/* MPI counts are ints: a rank's share beyond 2 GiB is refused (on every
 * rank alike, after the counts are known everywhere). */
static int t_exchange(void *ctx, char *const *send, const size_t *slen, char **recv, size_t *rlen)
{
	struct mpi_ctx *c = ctx;
	int n = c->size, err = 0;
	uint64_t *out = calloc(n, sizeof(*out)), *in = calloc(n, sizeof(*in)), total = 0, big = 0;
	int *sc = calloc(n, sizeof(int)), *sd = calloc(n, sizeof(int));
	int *rc = calloc(n, sizeof(int)), *rd = calloc(n, sizeof(int));
	char *sbuf = NULL;
	size_t stotal = 0;

	if (!out || !in || !sc || !sd || !rc || !rd)
		MPI_Abort(c->comm, 1);
	for (int i = 0; i < n; i++)
		stotal += out[i] = slen[i];
	MPI_Alltoall(out, 1, MPI_UINT64_T, in, 1, MPI_UINT64_T, c->comm);
	for (int i = 0; i < n; i++)
		total += in[i];
	big = stotal > INT32_MAX || total > INT32_MAX;
	MPI_Allreduce(MPI_IN_PLACE, &big, 1, MPI_UINT64_T, MPI_MAX, c->comm);
	*recv = NULL;
	*rlen = 0;
	if (big) {
		err = -E2BIG;
		goto out;
	}
	sbuf = malloc(stotal ? stotal : 1);
	*recv = malloc(total ? total : 1);
	if (!sbuf || !*recv)
		MPI_Abort(c->comm, 1);
	for (int i = 0, off = 0; i < n; off += sc[i], i++) {
		sc[i] = (int)out[i];
		sd[i] = off;
		if (sc[i])
			memcpy(sbuf + off, send[i], sc[i]);
	}
	for (int i = 0, off = 0; i < n; off += rc[i], i++) {
		rc[i] = (int)in[i];
		rd[i] = off;
	}
	MPI_Alltoallv(sbuf, sc, sd, MPI_BYTE, *recv, rc, rd, MPI_BYTE, c->comm);
	*rlen = total;
out:
	free(sbuf);
	free(out);
	free(in);
	free(sc);
	free(sd);
	free(rc);
	free(rd);
	return err;
}

static void t_balance(void *ctx, struct fcp_job *job)
{
	struct mpi_ctx *c = ctx;

	c->balance = fcp_balance_start(c->comm, job);
}

static void t_balance_join(void *ctx)
{
	struct mpi_ctx *c = ctx;

	fcp_balance_join(c->balance);
	c->balance = NULL;
}

static const struct fcp_dist_ops mpi_ops = {
	.bcast = t_bcast,
	.reduce = t_reduce,
	.exchange = t_exchange,
	.balance = t_balance,
	.balance_join = t_balance_join,
};

int fcp_mpi_dist_init(struct fcp_dist *d, MPI_Comm comm)
{
	struct mpi_ctx *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	c->comm = comm;
	MPI_Comm_rank(comm, &d->rank);
	MPI_Comm_size(comm, &d->size);
	c->size = d->size;
	d->ops = &mpi_ops;
	d->ctx = c;
	return 0;
}

void fcp_mpi_dist_release(struct fcp_dist *d)
{
	free(d->ctx);
	d->ctx = NULL;
}

int fcp_mpi_cpu_share(MPI_Comm comm)
{
	MPI_Comm node;
	cpu_set_t mine, all;
	int sum, n = 0;

	if (sched_getaffinity(0, sizeof(mine), &mine) < 0)
		return 1;
	n = CPU_COUNT(&mine);
	if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) != MPI_SUCCESS)
		return 1;
	MPI_Allreduce(&mine, &all, sizeof(mine), MPI_BYTE, MPI_BOR, node);
	MPI_Allreduce(&n, &sum, 1, MPI_INT, MPI_SUM, node);
	MPI_Comm_free(&node);
	/* Ranks bound to CPUs of their own share nothing: sum == union. */
	return CPU_COUNT(&all) > 0 ? (sum + CPU_COUNT(&all) / 2) / CPU_COUNT(&all) : 1;
}
