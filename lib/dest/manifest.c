/*
 * manifest.c - --manifest FILE (manifest.h): the record a job keeps. A
 * check of DEST alone with it (--check --manifest FILE DEST) reads it
 * back through the calls below and is check_manifest.c's.
 */
#include "config.h"
#include "dest/manifest.h"
#include "base/grow.h"
#include "core/node.h"
#include "dest/own.h"
#include "base/sys.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

char *fcp_manifest_key(const struct fcp_dir *d, const char *name, bool src)
{
	char *rel, *a, *b;

	/* The entry of a top pseudo-directory is a root itself. */
	if (d->is_top)
		return strdup(src ? (d->root->src_abs ? d->root->src_abs : name)
				  : d->root->rel_top ? d->root->rel_top : "");
	if (src && !d->root->src_abs)
		return NULL;
	if (!(rel = fcp_dir_rel_path(d)))
		return NULL;
	a = fcp_path_join(src ? d->root->src_abs : d->root->rel_top, rel);
	b = a ? fcp_path_join(a, name) : NULL;
	free(rel);
	free(a);
	return b;
}

#ifdef HAVE_SQLITE3
#include <sqlite3.h>
#include <time.h>
#include <unistd.h>

#define APP_ID 0x66637031 /* "fcp1" */
/* 2: a file's hash is that of its 32 MiB windows (hash.h); a larger
 * file's hash recorded by schema 1 (XXH3-128 of it whole) is dropped
 * when such a manifest is opened (migrate). */
#define SCHEMA 2
#define BATCH 4096        /* records per transaction, at most */
#define LINGER_MS 200     /* the writer waits this long for a batch to fill */

/* What a queued rec asks of the table. */
enum rec_kind {
	REC_PUT,         /* insert or replace the record */
	REC_FORGET,      /* delete the destination record of path */
	REC_FORGET_TREE, /* that, and every one below path (a directory) */
	REC_DISTRUST,    /* its hash no longer taken as read from storage */
};

struct rec {
	struct rec *next;
	int side;
	enum rec_kind kind;
	bool has_hash;
	uint64_t size, ino;
	int64_t mtime, ctime, verified;
	struct fcp_hash h;
	char path[];
};

/* The hashes known when the job started, read-only from then on. */
struct known {
	uint64_t key;  /* hash of side and path; 0 = empty slot */
	uint64_t size, ino;
	int64_t mtime, ctime;
	struct fcp_hash h;
	char *path;
	int side;
	bool verified; /* else a copy's hash of what it wrote: not trusted */
};

struct fcp_manifest {
	sqlite3 *db;
	char *path;
	struct known *v;
	size_t cap;
	pthread_t writer;
	bool writer_on;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct rec *head, **tail;
	size_t queued;
	bool closing;
	bool failed;   /* a write failed: said once, the rest dropped */
	bool must_exist; /* --check --manifest FILE DEST: never made */
	int rc;        /* the primary code of setup's failed step (db_why) */
};

bool fcp_manifest_available(void)
{
	return true;
}

static int64_t ns(const struct statx_timestamp *t)
{
	return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

static uint64_t key_of(int side, const char *path)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)side;

	for (const unsigned char *p = (const unsigned char *)path; *p; p++)
		h = (h ^ *p) * 1099511628211ull;
	return h ? h : 1;
}

static void hash_blob(const struct fcp_hash *h, unsigned char b[16])
{
	for (int i = 0; i < 8; i++) {
		b[i] = (unsigned char)(h->hi >> (56 - 8 * i));
		b[8 + i] = (unsigned char)(h->lo >> (56 - 8 * i));
	}
}

static bool blob_hash(const void *blob, int n, struct fcp_hash *h)
{
	const unsigned char *b = blob;

	if (!b || n != 16)
		return false;
	h->hi = h->lo = 0;
	for (int i = 0; i < 8; i++) {
		h->hi = h->hi << 8 | b[i];
		h->lo = h->lo << 8 | b[8 + i];
	}
	return true;
}

static struct known *slot(struct fcp_manifest *m, uint64_t k, int side, const char *path)
{
	for (size_t i = k & (m->cap - 1);; i = (i + 1) & (m->cap - 1))
		if (!m->v[i].key || (m->v[i].key == k && m->v[i].side == side &&
				     !strcmp(m->v[i].path, path)))
			return &m->v[i];
}

/* Why rc, the code of the SQLite call on m that just failed, in words
 * that name the cause: SQLite's "database or disk is full" and "disk I/O
 * error" leave the user to guess; its unix VFS says SQLITE_FULL for
 * ENOSPC (and short writes) alone. Written to text[len]. */
static const char *db_why(struct fcp_manifest *m, int rc, char *text, size_t len)
{
	int e = sqlite3_system_errno(m->db);

	m->rc = rc & 0xff;
	if (m->rc == SQLITE_FULL)
		snprintf(text, len, "%s", strerror(ENOSPC));
	else if ((m->rc == SQLITE_IOERR || m->rc == SQLITE_CANTOPEN) && e)
		snprintf(text, len, "%s", strerror(e));
	else
		snprintf(text, len, "%s", sqlite3_errcode(m->db) == rc ? sqlite3_errmsg(m->db)
								   : sqlite3_errstr(rc));
	return text;
}

/* Undo the open transaction, if one is: SQLite ends one itself on some
 * errors (a full disk), and a ROLLBACK then would only fail. Called after
 * the first error was put in words: it resets what SQLite says. */
static void rollback(sqlite3 *db)
{
	if (!sqlite3_get_autocommit(db))
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
}

/* Read every recorded hash into memory (only --check and --checksum ask). */
static int load(struct fcp_manifest *m)
{
	sqlite3_stmt *q;
	sqlite3_int64 n = 0;
	int r;

	/* Every hash: a copy's of the bytes it wrote too, which tells a
	 * --sync that a file it finds up to date is recorded already
	 * (fcp_manifest_has), though only hashes of bytes read from storage
	 * (verified set) are trusted (fcp_manifest_lookup). */
	if (sqlite3_prepare_v2(m->db, "SELECT count(*) FROM files WHERE xxh128 IS NOT NULL",
			       -1, &q, NULL) != SQLITE_OK)
		return sqlite3_errcode(m->db);
	if ((r = sqlite3_step(q)) == SQLITE_ROW)
		n = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	if (r != SQLITE_ROW)
		return r;
	for (m->cap = 16; m->cap < 2 * (size_t)n; m->cap *= 2)
		;
	if (!(m->v = calloc(m->cap, sizeof(*m->v))))
		return SQLITE_NOMEM;
	if (sqlite3_prepare_v2(m->db, "SELECT side, path, size, mtime, ctime, ino, xxh128, "
			       "verified IS NOT NULL FROM files WHERE xxh128 IS NOT NULL",
			       -1, &q, NULL) != SQLITE_OK)
		return sqlite3_errcode(m->db);
	while ((r = sqlite3_step(q)) == SQLITE_ROW && n-- > 0) {
		const char *path = (const char *)sqlite3_column_text(q, 1);
		struct known k = { .side = sqlite3_column_int(q, 0) };

		if (!path || !blob_hash(sqlite3_column_blob(q, 6), sqlite3_column_bytes(q, 6), &k.h))
			continue;
		k.key = key_of(k.side, path);
		k.size = (uint64_t)sqlite3_column_int64(q, 2);
		k.mtime = sqlite3_column_int64(q, 3);
		k.ctime = sqlite3_column_int64(q, 4);
		k.ino = (uint64_t)sqlite3_column_int64(q, 5);
		k.verified = sqlite3_column_int(q, 7);
		if (!(k.path = strdup(path)))
			break;
		*slot(m, k.key, k.side, path) = k;
	}
	sqlite3_finalize(q);
	return r == SQLITE_DONE || r == SQLITE_ROW ? SQLITE_OK : r;
}

/* The record of key with a hash, while the file (st) is unchanged. */
static const struct known *known_of(struct fcp_job *job, bool src, const char *key,
				    const struct statx *st)
{
	struct fcp_manifest *m = job->man;
	struct known *k;

	if (!m || !m->v)
		return NULL;
	k = slot(m, key_of(src, key), src, key);
	if (!k->key || k->size != st->stx_size || k->ino != st->stx_ino ||
	    k->mtime != ns(&st->stx_mtime) || k->ctime != ns(&st->stx_ctime))
		return NULL;
	return k;
}

bool fcp_manifest_lookup(struct fcp_job *job, bool src, const char *key,
			 const struct statx *st, struct fcp_hash *h)
{
	const struct known *k = known_of(job, src, key, st);

	if (!k || !k->verified)
		return false;
	*h = k->h;
	atomic_fetch_add(&job->c.trusted, 1);
	return true;
}

bool fcp_manifest_has(struct fcp_job *job, const char *key, const struct statx *st)
{
	return known_of(job, false, key, st) != NULL;
}

/* r to the writer's queue, in order; the writer wakes for a batch. */
static void enqueue(struct fcp_manifest *m, struct rec *r)
{
	pthread_mutex_lock(&m->lock);
	*m->tail = r;
	m->tail = &r->next;
	if (++m->queued >= BATCH)
		pthread_cond_signal(&m->wake);
	pthread_mutex_unlock(&m->lock);
}

/* Queue a record; verified: h is of bytes read from storage now. */
static void record(struct fcp_job *job, bool src, const char *key, const struct statx *st,
		   const struct fcp_hash *h, bool verified)
{
	struct fcp_manifest *m = job->man;
	size_t n = strlen(key) + 1;
	struct rec *r;

	if (!m || !(r = malloc(sizeof(*r) + n)))
		return;
	/* Read, but from a file whose times would not show a change made
	 * right after (racy): kept as what it should hold, never as proof
	 * that a later read can be skipped. */
	if (verified && fcp_statx_racy(st, &job->began))
		verified = false;
	*r = (struct rec){ .side = src, .has_hash = h != NULL, .size = st->stx_size,
			   .ino = st->stx_ino, .mtime = ns(&st->stx_mtime),
			   .ctime = ns(&st->stx_ctime),
			   .verified = h && verified ? (int64_t)time(NULL) : 0 };
	if (h)
		r->h = *h;
	memcpy(r->path, key, n);
	enqueue(m, r);
}

void fcp_manifest_record(struct fcp_job *job, bool src, const char *key,
			 const struct statx *st, const struct fcp_hash *h)
{
	record(job, src, key, st, h, true);
}

void fcp_manifest_expected(struct fcp_job *job, const char *key, const struct statx *st,
			   const struct fcp_hash *h)
{
	record(job, false, key, st, h, false);
}

void fcp_manifest_copied(struct fcp_job *job, const struct fcp_dir *d, const char *name,
			 const struct fcp_hash *h)
{
	struct fcp_hash empty;
	struct statx st;
	char *key;

	if (!job->man)
		return;
	/* After the rename: ctime as the file is now. */
	if (fcp_sys_statx(d->dst_fd, name, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &st) < 0 ||
	    !S_ISREG(st.stx_mode) || !(key = fcp_manifest_key(d, name, false)))
		return;
	if (!h && st.stx_size == 0) { /* --attributes-only, or nothing to hash */
		fcp_hash_buf(NULL, 0, &empty);
		h = &empty;
	}
	/* Read back from storage and compared only with --verify. */
	record(job, false, key, &st, h, job->o->verify);
	free(key);
}

void fcp_manifest_forget_key(struct fcp_job *job, const char *key, bool tree)
{
	struct fcp_manifest *m = job->man;
	size_t n = strlen(key) + 1;
	struct rec *r;

	/* A dry run changes nothing, the manifest included. */
	if (!m || job->o->dry_run)
		return;
	if ((r = malloc(sizeof(*r) + n))) {
		*r = (struct rec){ .kind = tree ? REC_FORGET_TREE : REC_FORGET };
		memcpy(r->path, key, n);
		/* Queued behind the records made before: a name that changes
		 * type in this run (a file replaced by a directory) loses its
		 * old record before the new ones below it are written. */
		enqueue(m, r);
	}
}

void fcp_manifest_distrust(struct fcp_job *job, bool src, const char *key)
{
	struct fcp_manifest *m = job->man;
	size_t n = strlen(key) + 1;
	struct rec *r;

	/* (A dry run's reads are as true as a run's: what they found wrong
	 * is remembered too.) */
	if (!m || !(r = malloc(sizeof(*r) + n)))
		return;
	*r = (struct rec){ .side = src, .kind = REC_DISTRUST };
	memcpy(r->path, key, n);
	enqueue(m, r);
}

void fcp_manifest_forget(struct fcp_job *job, const struct fcp_dir *d, const char *rel,
			 bool tree)
{
	char *key;

	if (job->man && (key = fcp_manifest_key(d, rel, false))) {
		fcp_manifest_forget_key(job, key, tree);
		free(key);
	}
}

/* Delete the destination record of r->path, and with REC_FORGET_TREE
 * every one below it: compared by bytes, as a range (path/ up to path0,
 * '0' following '/'), since LIKE would take a '%' or '_' in a name for a
 * wildcard and a name need not be valid UTF-8. */
static int forget(sqlite3_stmt *del, const struct rec *r)
{
	size_t n = strlen(r->path);
	char *lo = malloc(n + 2), *hi = malloc(n + 2);
	int rc = SQLITE_NOMEM;

	if (lo && hi) {
		memcpy(lo, r->path, n);
		memcpy(hi, r->path, n);
		memcpy(lo + n, "/", 2);
		memcpy(hi + n, "0", 2);
		sqlite3_reset(del);
		sqlite3_bind_text(del, 1, r->path, (int)n, SQLITE_STATIC);
		/* Only a directory's removal, and never below "" (DEST). */
		if (r->kind == REC_FORGET_TREE && n) {
			sqlite3_bind_text(del, 2, lo, (int)n + 1, SQLITE_TRANSIENT);
			sqlite3_bind_text(del, 3, hi, (int)n + 1, SQLITE_TRANSIENT);
		} else {
			sqlite3_bind_null(del, 2);
			sqlite3_bind_null(del, 3);
		}
		rc = sqlite3_step(del);
		rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
	}
	free(lo);
	free(hi);
	return rc;
}

/* One record into the open transaction. */
static int put(sqlite3_stmt *ins, const struct rec *r)
{
	unsigned char blob[16];
	int rc;

	sqlite3_reset(ins);
	sqlite3_bind_int(ins, 1, r->side);
	sqlite3_bind_text(ins, 2, r->path, -1, SQLITE_STATIC);
	sqlite3_bind_int64(ins, 3, (sqlite3_int64)r->size);
	sqlite3_bind_int64(ins, 4, r->mtime);
	sqlite3_bind_int64(ins, 5, r->ctime);
	sqlite3_bind_int64(ins, 6, (sqlite3_int64)r->ino);
	if (r->has_hash) {
		hash_blob(&r->h, blob);
		sqlite3_bind_blob(ins, 7, blob, 16, SQLITE_TRANSIENT);
		if (r->verified)
			sqlite3_bind_int64(ins, 8, r->verified);
		else
			sqlite3_bind_null(ins, 8);
	} else {
		sqlite3_bind_null(ins, 7);
		sqlite3_bind_null(ins, 8);
	}
	rc = sqlite3_step(ins);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* r's record no longer trusted as read from storage. */
static int distrust(sqlite3_stmt *dis, const struct rec *r)
{
	int rc;

	sqlite3_reset(dis);
	sqlite3_bind_int(dis, 1, r->side);
	sqlite3_bind_text(dis, 2, r->path, -1, SQLITE_STATIC);
	rc = sqlite3_step(dis);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* Write a list of records in one transaction; frees them. */
static void write_batch(struct fcp_job *job, struct fcp_manifest *m, struct rec *list)
{
	static const char sql[] =
		"INSERT OR REPLACE INTO files(side, path, size, mtime, ctime, ino, xxh128, verified) "
		"VALUES (?, ?, ?, ?, ?, ?, ?, ?)";
	/* (A NULL bound to ?2 and ?3 leaves the exact path alone.) */
	static const char del_sql[] =
		"DELETE FROM files WHERE side = 0 AND (path = ?1 OR (path >= ?2 AND path < ?3))";
	/* The hash stays, as what the file should hold (a check of DEST
	 * alone compares with it), but not as read: the next run reads. */
	static const char distrust_sql[] =
		"UPDATE files SET verified = NULL WHERE side = ? AND path = ?";
	sqlite3_stmt *ins = NULL, *del = NULL, *dis = NULL;
	int rc = m->failed ? SQLITE_ERROR
			   : sqlite3_exec(m->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);

	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(m->db, sql, -1, &ins, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(m->db, del_sql, -1, &del, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(m->db, distrust_sql, -1, &dis, NULL);
	for (struct rec *r = list; rc == SQLITE_OK && r; r = r->next)
		rc = r->kind == REC_PUT ? put(ins, r) : r->kind == REC_DISTRUST ? distrust(dis, r)
										: forget(del, r);
	sqlite3_finalize(ins);
	sqlite3_finalize(del);
	sqlite3_finalize(dis);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(m->db, "COMMIT", NULL, NULL, NULL);
	if (rc != SQLITE_OK && !m->failed) {
		char why[160];

		fcp_report_errorf(job, "cannot write manifest '%s': %s", m->path,
				  db_why(m, rc, why, sizeof(why)));
		rollback(m->db);
		atomic_fetch_add(&job->c.failed, 1);
		m->failed = true;
	}
	while (list) {
		struct rec *next = list->next;
		free(list);
		list = next;
	}
}

/* The one thread that writes: takes what is queued, a batch at a time,
 * waiting a little for a batch to fill. */
static void *writer(void *arg)
{
	struct fcp_job *job = arg;
	struct fcp_manifest *m = job->man;

	pthread_mutex_lock(&m->lock);
	for (;;) {
		struct rec *list;
		bool last;

		if (!m->closing && m->queued < BATCH) {
			struct timespec t;
			clock_gettime(CLOCK_REALTIME, &t);
			t.tv_nsec += LINGER_MS * 1000000L;
			t.tv_sec += t.tv_nsec / 1000000000L;
			t.tv_nsec %= 1000000000L;
			pthread_cond_timedwait(&m->wake, &m->lock, &t);
		}
		list = m->head;
		last = m->closing;
		m->head = NULL;
		m->tail = &m->head;
		m->queued = 0;
		pthread_mutex_unlock(&m->lock);
		if (list)
			write_batch(job, m, list);
		pthread_mutex_lock(&m->lock);
		if (last && !m->head)
			break;
	}
	pthread_mutex_unlock(&m->lock);
	return NULL;
}

static int one_int(sqlite3 *db, const char *sql, int *out)
{
	sqlite3_stmt *q;
	int rc = sqlite3_prepare_v2(db, sql, -1, &q, NULL);

	if (rc != SQLITE_OK)
		return rc;
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int(q, 0);
	sqlite3_finalize(q);
	return rc == SQLITE_ROW ? SQLITE_OK : rc;
}

/* A file that exists and is not empty must begin as SQLite's do: a
 * text file named by mistake is refused before SQLite is given it. */
static const char *not_sqlite(const char *path)
{
	char head[16];
	int fd = fcp_sys_openat(AT_FDCWD, path, O_RDONLY, 0);
	ssize_t n;

	if (fd < 0)
		return NULL; /* missing (made), or SQLite says why */
	n = fcp_sys_pread_full(fd, head, sizeof(head), 0);
	close(fd);
	return n > 0 && (n < 16 || memcmp(head, "SQLite format 3", 16))
		       ? "not an SQLite database" : NULL;
}

/* Is the open database ours (made now if it is new)? NULL, or why not. */
static const char *identify(struct fcp_manifest *m, char *why, size_t len)
{
	static const char init[] =
		"BEGIN IMMEDIATE;"
		"CREATE TABLE IF NOT EXISTS files(side INTEGER NOT NULL, path TEXT NOT NULL,"
		" size INTEGER NOT NULL, mtime INTEGER NOT NULL, ctime INTEGER NOT NULL,"
		" ino INTEGER NOT NULL, xxh128 BLOB, verified INTEGER,"
		" PRIMARY KEY(side, path)) WITHOUT ROWID;"
		"PRAGMA application_id = 1717792817;" /* APP_ID */
		"PRAGMA user_version = 2;"            /* SCHEMA */
		"COMMIT;";
	int app = 0, ver = 0, tables = 0, rc;

	_Static_assert(APP_ID == 1717792817 && SCHEMA == 2, "init[] spells them out");
	/* Two processes making one new manifest: the second waits on the
	 * first's transaction (busy timeout) and finds its tables. */
	if ((rc = one_int(m->db, "PRAGMA application_id", &app)) == SQLITE_OK &&
	    (rc = one_int(m->db, "SELECT count(*) FROM sqlite_master", &tables)) == SQLITE_OK &&
	    !app && !tables && !m->must_exist &&
	    (rc = sqlite3_exec(m->db, init, NULL, NULL, NULL)) != SQLITE_OK) {
		db_why(m, rc, why, len);
		rollback(m->db);
		return why;
	}
	if (rc == SQLITE_OK)
		rc = one_int(m->db, "PRAGMA application_id", &app);
	if (rc == SQLITE_OK)
		rc = one_int(m->db, "PRAGMA user_version", &ver);
	if (rc != SQLITE_OK)
		return db_why(m, rc, why, len);
	if (!app && !tables)
		return "an empty database: it records no files";
	if (app != APP_ID)
		return "another SQLite database, not a fastcp manifest";
	if (ver > SCHEMA) {
		snprintf(why, len, "made by a newer fastcp (schema %d; this one knows %d)", ver,
			 SCHEMA);
		return why;
	}
	return NULL;
}

/* Schema 1 hashed a file whole; its hashes of files larger than one
 * window mean something else now (hash.h): forgotten, not trusted. */
static const char *migrate(struct fcp_manifest *m, char *why, size_t len)
{
	static const char sql[] =
		"BEGIN IMMEDIATE;"
		"UPDATE files SET xxh128 = NULL, verified = NULL WHERE size > 33554432;"
		"PRAGMA user_version = 2;"
		"COMMIT;";
	int ver = 0, rc;

	_Static_assert(FCP_HASH_WINDOW == 33554432, "sql[] spells it out");
	if (one_int(m->db, "PRAGMA user_version", &ver) == SQLITE_OK && ver >= SCHEMA)
		return NULL;
	if ((rc = sqlite3_exec(m->db, sql, NULL, NULL, NULL)) == SQLITE_OK)
		return NULL;
	db_why(m, rc, why, len);
	rollback(m->db);
	return why;
}

static const char *damaged(struct fcp_manifest *m, char *why, size_t len)
{
	sqlite3_stmt *q;
	const char *res;
	int rc = sqlite3_prepare_v2(m->db, "PRAGMA quick_check(1)", -1, &q, NULL);

	if (rc == SQLITE_OK && (rc = sqlite3_step(q)) == SQLITE_ROW) {
		res = (const char *)sqlite3_column_text(q, 0);
		if (res && strcmp(res, "ok")) {
			/* One message line: SQLite's report has several. */
			snprintf(why, len, "damaged (%s)", res);
			for (char *c = why; *c; c++)
				*c = *c == '\n' ? ' ' : *c;
		} else {
			why = NULL;
		}
	} else {
		db_why(m, rc, why, len);
	}
	sqlite3_finalize(q);
	return why;
}

/* Can the manifest be written: the file, or a new one in its directory?
 * NULL, or why not (SQLite would only say "unable to open"). */
static const char *unwritable(const char *path)
{
	char *copy = strdup(path), *slash;
	int r = fcp_sys_access(path, W_OK);

	if (r == -ENOENT && copy) {
		slash = strrchr(copy, '/');
		if (slash)
			slash[slash == copy] = 0;
		r = fcp_sys_access(slash ? copy : ".", W_OK);
	}
	free(copy);
	return r < 0 ? strerror(-r) : NULL;
}

static void manifest_free(struct fcp_manifest *m)
{
	for (size_t i = 0; m->v && i < m->cap; i++)
		free(m->v[i].path);
	free(m->v);
	if (m->db)
		sqlite3_close(m->db);
	free(m->path);
	pthread_mutex_destroy(&m->lock);
	pthread_cond_destroy(&m->wake);
	free(m);
}

/* What an open manifest is checked for, and made ready: NULL, or why not
 * (in why[len], or a constant). */
static const char *setup(struct fcp_manifest *m, bool want_known, char *text, size_t len)
{
	const char *why;
	int rc;

	m->rc = SQLITE_OK;
	why = identify(m, text, len);
	/* Opened read-only after all (a read-only filesystem or file):
	 * nothing could be recorded. */
	if (!why && sqlite3_db_readonly(m->db, "main") == 1)
		why = strerror(EROFS);
	if (!why && (rc = sqlite3_exec(m->db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL",
				       NULL, NULL, NULL)) != SQLITE_OK)
		why = db_why(m, rc, text, len);
	/* A damaged file is not written into (that could spread the damage)
	 * nor trusted: one read of it all, before anything is copied. */
	if (!why)
		why = damaged(m, text, len);
	if (!why)
		why = migrate(m, text, len);
	if (!why && want_known && (rc = load(m)) != SQLITE_OK)
		why = db_why(m, rc, text, len);
	return why;
}

/* Is name+suffix in dfd (a journal of another process making it too)? */
static bool beside(int dfd, const char *name, const char *suffix)
{
	char *p = malloc(strlen(name) + strlen(suffix) + 1);
	struct statx st;
	bool there = !p || fcp_sys_statx(dfd, strcat(strcpy(p, name), suffix),
					 AT_SYMLINK_NOFOLLOW, STATX_TYPE, &st) != -ENOENT;

	free(p);
	return there;
}

/* The directory of path, a manifest about to be made, open (or < 0), and
 * its times in st: a manifest refused after all goes again (drop_made). */
static int made_dir(const char *path, struct statx *st)
{
	char *copy = strdup(path), *slash = copy ? strrchr(copy, '/') : NULL;
	int fd;

	if (slash)
		slash[slash == copy] = 0;
	fd = copy ? fcp_sys_openat(AT_FDCWD, slash ? copy : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0)
		  : -ENOMEM;
	free(copy);
	if (fd >= 0 && fcp_sys_statx(fd, "", AT_EMPTY_PATH, STATX_ATIME | STATX_MTIME, st) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* A manifest this run made (name in dfd, whose times were st) and could
 * not use is removed and its directory's times put back: a refused run
 * changes nothing. Only while it is empty, without a journal beside it:
 * another fastcp may have begun to make the same one. */
static void drop_made(int dfd, const char *name, const struct statx *st)
{
	struct timespec ts[2] = { { st->stx_atime.tv_sec, st->stx_atime.tv_nsec },
				  { st->stx_mtime.tv_sec, st->stx_mtime.tv_nsec } };
	struct statx now;

	if (fcp_sys_statx(dfd, name, AT_SYMLINK_NOFOLLOW, STATX_TYPE | STATX_SIZE, &now) == 0 &&
	    S_ISREG(now.stx_mode) && now.stx_size == 0 && !beside(dfd, name, "-journal") &&
	    !beside(dfd, name, "-wal") && fcp_sys_unlinkat(dfd, name, 0) == 0)
		fcp_sys_futimens(dfd, ts);
}

/* Open and check; the hashes read in when want_known. NULL after saying
 * why not. */
static struct fcp_manifest *manifest_open(struct fcp_job *job, const char *path, bool want_known,
					  bool must_exist)
{
	struct fcp_manifest *m = calloc(1, sizeof(*m));
	const char *why = !m ? "out of memory" : unwritable(path);
	char text[160];
	struct statx dst;
	int rc, dfd = -1;

	if (m) {
		pthread_mutex_init(&m->lock, NULL);
		pthread_cond_init(&m->wake, NULL);
		m->tail = &m->head;
		m->path = strdup(path);
		m->must_exist = must_exist;
	}
	if (!why)
		why = not_sqlite(path);
	if (!why && !must_exist && fcp_sys_access(path, F_OK) == -ENOENT)
		dfd = made_dir(path, &dst);
	if (!why && (rc = sqlite3_open_v2(path, &m->db, SQLITE_OPEN_READWRITE |
					  (must_exist ? 0 : SQLITE_OPEN_CREATE) |
					  SQLITE_OPEN_FULLMUTEX, NULL)) != SQLITE_OK) {
		/* SQLite's "unable to open database file" hides the cause. */
		int e = m->db ? sqlite3_system_errno(m->db) : 0;
		snprintf(text, sizeof(text), "%s", e ? strerror(e) : sqlite3_errstr(rc));
		why = text;
	}
	if (!why) {
		sqlite3_busy_timeout(m->db, 30000);
		sqlite3_extended_result_codes(m->db, 0);
	}
	/* Two processes opening one new manifest at once: some steps (the
	 * switch to WAL, a read turned write) answer "locked" at once instead
	 * of waiting; each step is safe to repeat, so the set is tried again
	 * for as long as the busy timeout would wait. */
	for (int tries = 0; !why; tries++) {
		why = setup(m, want_known, text, sizeof(text));
		if (!why || tries >= 600 || (m->rc != SQLITE_BUSY && m->rc != SQLITE_LOCKED))
			break;
		why = NULL;
		usleep(50000);
	}
	if (why) {
		fcp_report_errorf(job, "cannot use manifest '%s': %s; not used, nothing done", path,
				  why);
		if (m)
			manifest_free(m);
		if (dfd >= 0)
			drop_made(dfd, strrchr(path, '/') ? strrchr(path, '/') + 1 : path, &dst);
	}
	if (dfd >= 0)
		close(dfd);
	return why ? NULL : m;
}

/* Open the manifest for job, with its writer; must_exist: never made. */
static int open_for(struct fcp_job *job, const char *path, bool must_exist)
{
	/* A copy reads the known hashes in: --check and --checksum trust
	 * them, and a --sync keeps the record of a file it finds up to date
	 * (fcp_manifest_has). A check of DEST alone reads every row. */
	struct fcp_manifest *m = manifest_open(job, path, !must_exist, must_exist);

	if (!m)
		return -1;
	job->man = m;
	if (pthread_create(&m->writer, NULL, writer, job) != 0) {
		fcp_report_errorf(job, "cannot start the manifest writer for '%s'", path);
		job->man = NULL;
		manifest_free(m);
		return -1;
	}
	m->writer_on = true;
	return 0;
}

/* DEST as an absolute path without symlinks, whether it exists yet or
 * not (a copy may make it). malloc'd, or NULL. */
static char *dest_root(const char *dest)
{
	char *p = realpath(dest, NULL), *copy, *slash, *dir, *base;
	size_t n;

	if (p || !(copy = strdup(dest)))
		return p;
	for (n = strlen(copy); n > 1 && copy[n - 1] == '/'; n--)
		copy[n - 1] = 0;
	slash = strrchr(copy, '/');
	base = slash ? slash + 1 : copy;
	if (slash)
		*slash = 0;
	dir = realpath(!slash ? "." : slash == copy ? "/" : copy, NULL);
	p = dir ? fcp_path_join(dir, base) : strdup(dest);
	free(dir);
	free(copy);
	return p;
}

/* The DEST the manifest's records are relative to ("dest" in table
 * meta), in the open transaction: malloc'd into *was, or NULL when none
 * is recorded yet (then root is). */
static int dest_recorded(sqlite3 *db, const char *root, char **was)
{
	sqlite3_stmt *q;
	int rc = sqlite3_exec(db, "CREATE TABLE IF NOT EXISTS meta(name TEXT PRIMARY KEY NOT NULL,"
			      " value TEXT NOT NULL) WITHOUT ROWID", NULL, NULL, NULL);

	*was = NULL;
	if (rc == SQLITE_OK &&
	    (rc = sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE name = 'dest'", -1, &q,
				     NULL)) == SQLITE_OK) {
		if ((rc = sqlite3_step(q)) == SQLITE_ROW && sqlite3_column_text(q, 0))
			*was = strdup((const char *)sqlite3_column_text(q, 0));
		rc = rc == SQLITE_ROW || rc == SQLITE_DONE ? SQLITE_OK : rc;
		sqlite3_finalize(q);
	}
	if (rc == SQLITE_OK && !*was &&
	    (rc = sqlite3_prepare_v2(db, "INSERT INTO meta(name, value) VALUES ('dest', ?)", -1,
				     &q, NULL)) == SQLITE_OK) {
		sqlite3_bind_text(q, 1, root, -1, SQLITE_STATIC);
		rc = sqlite3_step(q) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(db);
		sqlite3_finalize(q);
	}
	return rc;
}

/* The DEST recorded in the manifest, read only (a check writes nothing
 * of its own): malloc'd, or NULL when none is (an older fastcp's). */
static char *dest_of(sqlite3 *db)
{
	sqlite3_stmt *q;
	char *was = NULL;

	if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE name = 'dest'", -1, &q, NULL) !=
	    SQLITE_OK)
		return NULL;
	if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_text(q, 0))
		was = strdup((const char *)sqlite3_column_text(q, 0));
	sqlite3_finalize(q);
	return was;
}

/* The DEST a manifest names, read from the database file alone, writing
 * nothing: opened read-write, SQLite makes its -wal and -shm files beside
 * it and removes them, which changes the directory's ctime, and a manifest
 * refused for another DEST must leave everything as it was. "immutable"
 * reads no journal: a record only in a killed run's -wal is met by
 * bind_dest, which reads it all. malloc'd, or NULL when none is read. */
static char *dest_peek(const char *path)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = strlen(path);
	char *uri = malloc(3 * n + sizeof("file:?immutable=1")), *q = uri, *was = NULL;
	sqlite3 *db = NULL;
	int app = 0, ver = 0;

	if (!uri || fcp_sys_access(path, R_OK) < 0) {
		free(uri);
		return NULL;
	}
	q += sprintf(q, "file:");
	for (const unsigned char *c = (const unsigned char *)path; *c; c++) {
		if (isalnum(*c) || strchr("/-._~", *c)) {
			*q++ = *c;
		} else {
			*q++ = '%';
			*q++ = hex[*c >> 4];
			*q++ = hex[*c & 15];
		}
	}
	strcpy(q, "?immutable=1");
	/* Only a manifest identify() would take: another one is refused for
	 * what it is, first. */
	if (sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) == SQLITE_OK &&
	    one_int(db, "PRAGMA application_id", &app) == SQLITE_OK && app == APP_ID &&
	    one_int(db, "PRAGMA user_version", &ver) == SQLITE_OK && ver <= SCHEMA)
		was = dest_of(db);
	sqlite3_close(db);
	free(uri);
	return was;
}

/* The manifest names another DEST than root (said), or not. */
static bool names_other(struct fcp_job *job, const char *path, const char *was, const char *root)
{
	if (!was || !root || !strcmp(was, root))
		return false;
	fcp_report_errorf(job, "cannot use manifest '%s': it records the files of '%s', not '%s' "
			  "(a manifest serves one DEST: give this one its own); not used, nothing "
			  "done", path, was, root);
	return true;
}

/* A destination file's record is keyed by its path relative to DEST: a
 * manifest shared by copies into two DESTs would mix their files under
 * one name. So a manifest serves one DEST, the first that used it
 * (recorded), and is refused for another. 0, or -1 after saying why. */
static int bind_dest(struct fcp_job *job, const char *dest)
{
	struct fcp_manifest *m = job->man;
	char *root = dest_root(dest), *was = NULL;
	int rc = root ? sqlite3_exec(m->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) : SQLITE_NOMEM;

	if (rc == SQLITE_OK && (rc = dest_recorded(m->db, root, &was)) == SQLITE_OK)
		rc = sqlite3_exec(m->db, "COMMIT", NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		char why[160];

		fcp_report_errorf(job, "cannot use manifest '%s': %s; not used, nothing done",
				  m->path, root ? db_why(m, rc, why, sizeof(why)) : "out of memory");
		rollback(m->db);
	} else if (names_other(job, m->path, was, root)) {
		rc = SQLITE_MISMATCH;
	}
	free(root);
	free(was);
	return rc == SQLITE_OK ? 0 : -1;
}

int fcp_manifest_open(struct fcp_job *job, const char *path, const char *dest)
{
	/* The times of the manifest's directory, put back when the manifest
	 * is refused for another DEST: SQLite's journal files, made and
	 * removed meanwhile, moved them, and a refused run changes nothing. */
	struct statx st = { 0 };
	char *was = dest_peek(path), *root = dest_root(dest);
	bool other = names_other(job, path, was, root);
	int dfd = other ? -1 : made_dir(path, &st);
	struct timespec ts[2] = { { st.stx_atime.tv_sec, st.stx_atime.tv_nsec },
				  { st.stx_mtime.tv_sec, st.stx_mtime.tv_nsec } };
	int r = other ? -1 : open_for(job, path, false) < 0 ? -1 : bind_dest(job, dest) == 0 ? 0 : -2;

	free(was);
	free(root);

	if (r == -2) {
		fcp_manifest_close(job);
		if (dfd >= 0)
			fcp_sys_futimens(dfd, ts);
	}
	if (dfd >= 0)
		close(dfd);
	return r < 0 ? -1 : 0;
}

int fcp_manifest_open_check(struct fcp_job *job, const char *path)
{
	return open_for(job, path, true);
}

char *fcp_manifest_dest(struct fcp_job *job)
{
	return dest_of(job->man->db);
}

char *fcp_manifest_dest_root(const char *dest)
{
	return dest_root(dest);
}

void fcp_manifest_close(struct fcp_job *job)
{
	struct fcp_manifest *m = job->man;

	if (!m)
		return;
	pthread_mutex_lock(&m->lock);
	m->closing = true;
	pthread_cond_signal(&m->wake);
	pthread_mutex_unlock(&m->lock);
	if (m->writer_on)
		pthread_join(m->writer, NULL);
	job->man = NULL;
	manifest_free(m);
}

int fcp_manifest_rows(struct fcp_job *job, struct fcp_manifest_row **out, size_t *n)
{
	struct fcp_manifest *m = job->man;
	sqlite3_stmt *q;
	size_t cap = 0;
	int rc = sqlite3_prepare_v2(m->db, "SELECT path, size, xxh128 FROM files WHERE side = 0 "
				    "ORDER BY path", -1, &q, NULL);

	*out = NULL;
	*n = 0;
	while (rc == SQLITE_OK && (rc = sqlite3_step(q)) == SQLITE_ROW) {
		struct fcp_manifest_row r = { .size = (uint64_t)sqlite3_column_int64(q, 1) };
		const char *p = (const char *)sqlite3_column_text(q, 0);

		r.has_hash = blob_hash(sqlite3_column_blob(q, 2), sqlite3_column_bytes(q, 2), &r.h);
		struct fcp_manifest_row *v = fcp_grow(*out, &cap, *n + 1, sizeof(*v), 1024);

		if (!v)
			break;
		*out = v;
		if (!p || !(r.path = strdup(p)))
			break;
		(*out)[(*n)++] = r;
		rc = SQLITE_OK;
	}
	sqlite3_finalize(q);
	if (rc == SQLITE_DONE || rc == SQLITE_OK)
		return 0;
	fcp_report_errorf(job, "cannot read manifest '%s': %s", m->path, sqlite3_errmsg(m->db));
	return -1;
}

#else /* no SQLite: --manifest is refused on the command line */

bool fcp_manifest_available(void) { return false; }
int fcp_manifest_open(struct fcp_job *job, const char *path, const char *dest)
{
	fcp_report_errorf(job, "--manifest is not available: fastcp was built without SQLite");
	return -1;
}
void fcp_manifest_close(struct fcp_job *job) { (void)job; }
bool fcp_manifest_lookup(struct fcp_job *job, bool src, const char *key,
			 const struct statx *st, struct fcp_hash *h) { return false; }
void fcp_manifest_record(struct fcp_job *job, bool src, const char *key,
			 const struct statx *st, const struct fcp_hash *h) { }
void fcp_manifest_copied(struct fcp_job *job, const struct fcp_dir *d, const char *name,
			 const struct fcp_hash *h) { }
void fcp_manifest_forget(struct fcp_job *job, const struct fcp_dir *d, const char *rel,
			 bool tree) { }
void fcp_manifest_forget_key(struct fcp_job *job, const char *key, bool tree) { }
void fcp_manifest_distrust(struct fcp_job *job, bool src, const char *key) { }
bool fcp_manifest_has(struct fcp_job *job, const char *key, const struct statx *st)
{
	return false;
}
void fcp_manifest_expected(struct fcp_job *job, const char *key, const struct statx *st,
			   const struct fcp_hash *h) { }
#endif
