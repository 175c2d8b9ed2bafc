/*
 * manifest.c - --manifest FILE (manifest.h).
 */
#include "config.h"
#include "manifest.h"
#include "check.h"
#include "grow.h"
#include "limiter.h"
#include "node.h"
#include "own.h"
#include "sys.h"

#include <ctype.h>
#include <dirent.h>
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

/* Write a list of records in one transaction; frees them. */
static void write_batch(struct fcp_job *job, struct fcp_manifest *m, struct rec *list)
{
	static const char sql[] =
		"INSERT OR REPLACE INTO files(side, path, size, mtime, ctime, ino, xxh128, verified) "
		"VALUES (?, ?, ?, ?, ?, ?, ?, ?)";
	/* (A NULL bound to ?2 and ?3 leaves the exact path alone.) */
	static const char del_sql[] =
		"DELETE FROM files WHERE side = 0 AND (path = ?1 OR (path >= ?2 AND path < ?3))";
	sqlite3_stmt *ins = NULL, *del = NULL;
	int rc = m->failed ? SQLITE_ERROR
			   : sqlite3_exec(m->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);

	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(m->db, sql, -1, &ins, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(m->db, del_sql, -1, &del, NULL);
	for (struct rec *r = list; rc == SQLITE_OK && r; r = r->next)
		rc = r->kind == REC_PUT ? put(ins, r) : forget(del, r);
	sqlite3_finalize(ins);
	sqlite3_finalize(del);
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

struct row {
	char *path;
	uint64_t size;
	bool has_hash;
	struct fcp_hash h;
};

/* Every destination row, in path order. */
static int rows(struct fcp_manifest *m, struct row **out, size_t *n)
{
	sqlite3_stmt *q;
	size_t cap = 0;
	int rc = sqlite3_prepare_v2(m->db, "SELECT path, size, xxh128 FROM files WHERE side = 0 "
				    "ORDER BY path", -1, &q, NULL);

	*out = NULL;
	*n = 0;
	while (rc == SQLITE_OK && (rc = sqlite3_step(q)) == SQLITE_ROW) {
		struct row r = { .size = (uint64_t)sqlite3_column_int64(q, 1) };
		const char *p = (const char *)sqlite3_column_text(q, 0);

		r.has_hash = blob_hash(sqlite3_column_blob(q, 2), sqlite3_column_bytes(q, 2), &r.h);
		struct row *v = fcp_grow(*out, &cap, *n + 1, sizeof(*v), 1024);

		if (!v)
			break;
		*out = v;
		if (!p || !(r.path = strdup(p)))
			break;
		(*out)[(*n)++] = r;
		rc = SQLITE_OK;
	}
	sqlite3_finalize(q);
	return rc == SQLITE_DONE || rc == SQLITE_OK ? 0 : -1;
}

/* The highest directory of dest on the filesystem dev: dest itself, or
 * the first directory on the way down to rel (a file below dfd) that is.
 * malloc'd, or NULL. */
static char *fs_top(int dfd, const char *dest, const char *rel, uint64_t dev)
{
	char *q = strdup(rel), *slash;
	struct statx st;

	if (fcp_sys_fstatx(dfd, &st) == 0 && fcp_statx_dev(&st) == dev) {
		free(q);
		return strdup(dest);
	}
	for (slash = q ? strchr(q, '/') : NULL; slash; slash = strchr(slash + 1, '/')) {
		*slash = 0;
		if (fcp_sys_statx(dfd, q, AT_SYMLINK_NOFOLLOW, STATX_TYPE, &st) == 0 &&
		    fcp_statx_dev(&st) == dev) {
			char *p = fcp_path_join(dest, q);
			free(q);
			return p;
		}
		*slash = '/';
	}
	free(q);
	return fcp_path_join(dest, rel); /* a file mounted there alone */
}

/* A recorded file of DEST (fd, st; p its path) read through the page
 * cache: said once for its filesystem (check.h). */
static void no_direct(struct fcp_job *job, int dfd, const char *dest, const struct row *r,
		      int fd, const struct statx *st)
{
	char *top;

	if (!fcp_check_no_direct_first(job, fd))
		return;
	top = *r->path ? fs_top(dfd, dest, r->path, fcp_statx_dev(st)) : strdup(dest);
	fcp_check_say_no_direct(job, fd, top ? top : dest);
	free(top);
}

/* The recorded file r, open as fd (st; p its path), read from storage
 * (O_DIRECT) and compared with its recorded hash. */
static void compare_one(struct fcp_job *job, int dfd, const char *dest, const struct row *r,
			int fd, const struct statx *st, const char *p, void *buf, size_t cap)
{
	bool direct = fcp_sys_set_direct(fd, true) == 0;
	struct fcp_hash h;
	int e = fcp_hash_fd(job, fd, st->stx_size, buf, cap, direct, &h);

	/* Read through the page cache after all (refused by the fcntl, or
	 * by a read): said, and the comparison stands for what was read. */
	if (e == 0 && st->stx_size > 0 && (!direct || fcp_sys_direct_on(fd) == 0))
		no_direct(job, dfd, dest, r, fd, st);
	if (e < 0) {
		fcp_report_failed(job, "cannot read", p, e);
	} else if (!fcp_hash_equal(&h, &r->h)) {
		fcp_check_say(job, p, "content differs");
	} else {
		/* The same bytes: verified now. */
		fcp_manifest_record(job, false, r->path, st, &h);
		atomic_fetch_add(&job->c.files, 1);
	}
}

/* Read one recorded file again: say how it changed; record its hash when
 * it is the one recorded. A file recorded without a hash is not read: its
 * bytes may be damaged already, and nothing here could tell, so its hash
 * now is never taken for the truth; it is counted as not compared. */
static void verify_one(struct fcp_job *job, int dfd, const char *dest, const struct row *r,
		       void *buf, size_t cap, uint64_t *unhashed)
{
	char *p = fcp_path_join(dest, r->path);
	int fd = *r->path ? fcp_sys_open_beneath(dfd, r->path, O_RDONLY | O_NOFOLLOW, 0)
			  : fcp_sys_openat(AT_FDCWD, dest, O_RDONLY | O_NOFOLLOW, 0);
	struct statx st;
	int e;

	if (fd == -ENOENT || fd == -ENOTDIR)
		fcp_check_say(job, p, "missing in DEST");
	else if (fd == -ELOOP)
		fcp_check_say(job, p, "type file != symlink");
	else if (fd < 0)
		fcp_report_failed(job, "cannot open", p, fd);
	else if ((e = fcp_sys_fstatx(fd, &st)) < 0)
		fcp_report_failed(job, "cannot stat", p, e);
	else if (!S_ISREG(st.stx_mode))
		fcp_check_say(job, p, "type file != %s", S_ISDIR(st.stx_mode) ? "directory"
									 : "special file");
	else if (st.stx_size != r->size)
		fcp_check_say(job, p, "size %llu != %llu", (unsigned long long)r->size,
			      (unsigned long long)st.stx_size);
	else if (!r->has_hash)
		(*unhashed)++;
	else
		compare_one(job, dfd, dest, r, fd, &st, p, buf, cap);
	if (fd >= 0)
		close(fd);
	free(p);
}

/* The re-verify's workers share out the rows by an atomic index. */
struct verify {
	struct fcp_job *job;
	struct row *v;
	size_t n;
	atomic_size_t next;
	atomic_ullong unhashed;
	int dfd;
	const char *dest;
};

static void *verify_worker(void *arg)
{
	struct verify *x = arg;
	size_t cap = 1 << 20, i;
	void *buf = aligned_alloc(4096, cap); /* O_DIRECT's reads (verify_one) */
	uint64_t unhashed = 0;

	while (buf && (i = atomic_fetch_add(&x->next, 1)) < x->n)
		verify_one(x->job, x->dfd, x->dest, &x->v[i], buf, cap, &unhashed);
	if (!buf)
		fcp_report_errorf(x->job, "out of memory verifying '%s'", x->dest);
	atomic_fetch_add(&x->unhashed, unhashed);
	free(buf);
	return NULL;
}

/* Read the rows again on a few threads: a cold disk answers several
 * reads at once faster than one after another. */
static void verify_all(struct verify *x, int threads)
{
	pthread_t t[32];
	int k = 0;

	if (threads > 32)
		threads = 32;
	while (k < threads && (size_t)k < x->n && pthread_create(&t[k], NULL, verify_worker, x) == 0)
		k++;
	if (k == 0)
		verify_worker(x);
	while (k-- > 0)
		pthread_join(t[k], NULL);
}

/* Is the recorded path rel (a row; "" for DEST itself) there, below the
 * directory dfd, or as dfd itself when dfd is a file? */
static bool row_there(int dfd, bool dfd_is_file, const char *rel)
{
	int fd;

	if (!*rel || dfd_is_file)
		return !*rel && dfd_is_file;
	fd = fcp_sys_open_beneath(dfd, rel, O_PATH | O_NOFOLLOW, 0);
	if (fd >= 0)
		close(fd);
	return fd >= 0;
}

/* Is any of a few rows, spread over all of them, there under path? */
static bool sample_there(const char *path, const struct row *v, size_t n)
{
	int fd = fcp_sys_openat(AT_FDCWD, path, O_PATH | O_DIRECTORY, 0);
	bool found = false;

	if (fd < 0)
		return false;
	for (size_t k = 0; k < 16 && !found; k++)
		found = row_there(fd, false, v[n * k / 16].path);
	close(fd);
	return found;
}

/* The real path of dest, or of the nearest directory above it that
 * exists (dest may be missing: mistyped, or its disk not mounted). */
static char *real_existing(const char *dest)
{
	char *copy = strdup(dest), *p = NULL, *slash;

	while (copy && !(p = realpath(copy, NULL))) {
		if (!(slash = strrchr(copy, '/'))) {
			p = realpath(".", NULL);
			break;
		}
		if (slash == copy) {
			p = strdup("/");
			break;
		}
		*slash = 0;
	}
	free(copy);
	return p;
}

/* A directory under which the recorded files are, near dest: one of its
 * parents (the copy went into DEST, not -T), or one of its directories
 * (the reverse). malloc'd, or NULL. */
static char *probably_meant(const char *dest, const struct row *v, size_t n)
{
	char *p = real_existing(dest), *slash, *found = NULL;
	int fd = fcp_sys_openat(AT_FDCWD, dest, O_RDONLY | O_DIRECTORY, 0);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;

	if (!dir && fd >= 0)
		close(fd);
	/* A few hundred of them at most: a hint, not a search. */
	for (int seen = 0; dir && !found && seen < 500 && fcp_sys_readdir(dir, &de) > 0; seen++) {
		char *c;

		if ((de->d_type != DT_DIR && de->d_type != DT_UNKNOWN) || !strcmp(de->d_name, ".") ||
		    !strcmp(de->d_name, ".."))
			continue;
		c = fcp_path_join(dest, de->d_name);
		if (c && sample_there(c, v, n))
			found = c;
		else
			free(c);
	}
	if (dir)
		closedir(dir);
	for (int up = 0; p && !found && up < 8 && (slash = strrchr(p, '/')); up++) {
		slash[slash == p] = 0;
		if (sample_there(p, v, n))
			found = strdup(p);
		if (slash == p)
			break;
	}
	free(p);
	return found;
}

/* A check of DEST alone with the manifest of another DEST that is still
 * there would report its files missing and DEST's own as not recorded, a
 * long list that hides the mistake: refused, naming the DEST recorded.
 * Where the recorded DEST holds none of its files (a disk mounted
 * elsewhere, a copy moved), the DEST given is checked. */
static bool other_dest(struct fcp_job *job, const struct verify *x)
{
	char *was = dest_of(job->man->db), *root = dest_root(x->dest);
	bool other = was && root && strcmp(was, root) && sample_there(was, x->v, x->n);

	if (other)
		fcp_report_errorf(job, "manifest '%s' records the files of '%s', not of '%s' (a "
				  "manifest serves one DEST: was '%s' meant?); nothing checked",
				  job->o->manifest, was, root, was);
	free(was);
	free(root);
	return other;
}

/* Before any file is read: is anything recorded there at all? Where
 * nothing is (a DEST mistyped, a disk not mounted), a line per file
 * "missing" would hide the cause: said once, with the directory
 * probably meant, and nothing is checked. */
static bool nothing_there(struct fcp_job *job, const struct verify *x)
{
	char *meant;

	for (size_t i = 0; i < x->n; i++)
		if (row_there(x->dfd, x->dfd == -ENOTDIR, x->v[i].path))
			return false;
	meant = probably_meant(x->dest, x->v, x->n);
	fcp_report_errorf(job, "none of the %zu files that manifest '%s' records is in '%s'%s%s%s; "
			  "nothing checked", x->n, job->o->manifest, x->dest,
			  meant ? " (was '" : "", meant ? meant : "", meant ? "' meant?)" : "");
	free(meant);
	return true;
}

/* The files of DEST that no row names: a check that reads only the rows
 * would call DEST equal while such a file (copied without --manifest, or
 * found up to date by an older fastcp, which did not record it) could be
 * damaged unseen. Only regular files are recorded, so only they count. */
struct unrec {
	struct fcp_job *job;
	const struct row *v;
	size_t n;
	uint64_t count;  /* files not recorded */
	uint64_t mounts; /* other filesystems below DEST, not read */
};

static int row_cmp(const void *key, const void *row)
{
	return strcmp(key, ((const struct row *)row)->path);
}

static void unrec_dir(struct unrec *u, int fd, const char *rel, const char *path);

/* One entry of a directory of DEST: a file said when no row names it; a
 * directory entered, unless it is another mount (not read: counted). */
static void unrec_entry(struct unrec *u, int fd, const struct statx *dir,
			const struct dirent *de, const char *rel, const char *path)
{
	char *r = *rel ? fcp_path_join(rel, de->d_name) : strdup(de->d_name);
	char *p = fcp_path_join(path, de->d_name);
	unsigned char type = de->d_type;
	struct statx st;
	int sub, e;

	if (type == DT_UNKNOWN || type == DT_DIR) {
		e = fcp_sys_statx(fd, de->d_name, AT_SYMLINK_NOFOLLOW, STATX_TYPE, &st);
		type = e < 0 ? DT_UNKNOWN : S_ISDIR(st.stx_mode) ? DT_DIR
					   : S_ISREG(st.stx_mode) ? DT_REG : DT_UNKNOWN;
		if (e < 0)
			fcp_report_failed(u->job, "cannot stat", p ? p : de->d_name, e);
	}
	if (!r || !p) {
		fcp_report_errorf(u->job, "out of memory checking '%s'", path);
	} else if (type == DT_REG) {
		if (!bsearch(r, u->v, u->n, sizeof(*u->v), row_cmp) &&
		    !(dir && fcp_own_name(u->job, fcp_statx_dev(dir), dir->stx_ino, de->d_name))) {
			fcp_report_plan(u->job, "not in the manifest:", p);
			u->count++;
		}
	} else if (type == DT_DIR && (st.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) &&
		   (st.stx_attributes & STATX_ATTR_MOUNT_ROOT)) {
		fcp_report_plan(u->job, "not read, another mount:", p);
		u->mounts++;
	} else if (type == DT_DIR) {
		sub = fcp_sys_openat(fd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0);
		if (sub < 0)
			fcp_report_failed(u->job, "cannot open", p, sub);
		else
			unrec_dir(u, sub, r, p);
	}
	free(r);
	free(p);
}

/* Every entry of the directory fd (closed here): rel its path in DEST. */
static void unrec_dir(struct unrec *u, int fd, const char *rel, const char *path)
{
	DIR *dir = fdopendir(fd);
	struct dirent *de;
	struct statx st;
	/* The job's own files (the manifest, its -wal and -shm, --log,
	 * --events) are not the copy's: own.h. */
	bool own = fcp_sys_fstatx(fd, &st) == 0 && fcp_own_dir(u->job, fcp_statx_dev(&st), st.stx_ino);
	int r;

	if (!dir) {
		fcp_report_failed(u->job, "cannot read", path, -errno);
		close(fd);
		return;
	}
	while ((r = fcp_sys_readdir(dir, &de)) > 0)
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			unrec_entry(u, dirfd(dir), own ? &st : NULL, de, rel, path);
	if (r < 0)
		fcp_report_failed(u->job, "cannot read", path, r);
	closedir(dir);
}

/* The files under DEST (x->dfd) that the manifest does not record:
 * said, and their number returned (not compared). */
static uint64_t unrecorded(struct fcp_job *job, const struct verify *x)
{
	struct unrec u = { .job = job, .v = x->v, .n = x->n };
	int fd = fcp_sys_openat(x->dfd, ".", O_RDONLY | O_DIRECTORY, 0);

	if (fcp_own_init(job) < 0) {
		fcp_report_errorf(job, "out of memory");
		atomic_fetch_add(&job->c.failed, 1);
		if (fd >= 0)
			close(fd);
		return 0;
	}
	if (fd < 0)
		fcp_report_failed(job, "cannot open", x->dest, fd);
	else
		unrec_dir(&u, fd, "", x->dest);
	fcp_own_free(job);
	if (u.count)
		fprintf(job->err, "fastcp: %llu file%s in '%s' not in the manifest (copied without "
			"--manifest, or by an older fastcp): not compared; a check against the "
			"source (fastcp --check --manifest FILE SOURCE DEST) records %s\n",
			(unsigned long long)u.count, u.count == 1 ? "" : "s", x->dest,
			u.count == 1 ? "it" : "them");
	if (u.mounts)
		fprintf(job->err, "fastcp: %llu other filesystem%s mounted in '%s' not read: not "
			"compared\n", (unsigned long long)u.mounts, u.mounts == 1 ? "" : "s",
			x->dest);
	return u.count + u.mounts;
}

int fcp_manifest_verify(const struct fcp_options *o, const char *dest, struct fcp_stats *stats)
{
	struct fcp_job job = { .o = o, .err = o->err ? o->err : stderr };
	struct verify x = { .job = &job, .dest = dest };
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int r, rc = 0;
	size_t all;
	uint64_t extra = 0;

	memset(stats, 0, sizeof(*stats));
	stats->check = true;
	pthread_mutex_init(&job.err_lock, NULL);
	/* Only a manifest a copy made can say what DEST should hold: a
	 * missing or empty one is a mistake (a mistyped name), never made. */
	if (open_for(&job, o->manifest, true) < 0)
		return FCP_EXIT_USAGE;
	/* The reads of DEST's files take from --bwlimit, --iolimit too. */
	if (fcp_limit_init(&job) < 0) {
		fcp_report_errorf(&job, "out of memory");
		fcp_manifest_close(&job);
		return FCP_EXIT_PARTIAL;
	}
	/* Not even the access times of DEST move (directories included).
	 * (The check's table of filesystems refusing O_DIRECT: check.h.) */
	fcp_sys_reads_noatime(true);
	fcp_check_links_init(&job);
	r = rows(job.man, &x.v, &x.n);
	all = x.n;
	if (r < 0) {
		fcp_report_errorf(&job, "cannot read manifest '%s': %s", o->manifest,
				  sqlite3_errmsg(job.man->db));
	} else if (x.n == 0) {
		fcp_report_errorf(&job, "manifest '%s' records no files; nothing checked",
				  o->manifest);
		rc = FCP_EXIT_USAGE;
	}
	/* DEST is a file when the copy was one file (-T): its row is "". */
	x.dfd = fcp_sys_openat(AT_FDCWD, dest, O_RDONLY | O_DIRECTORY, 0);
	if (x.dfd < 0 && x.dfd != -ENOTDIR && x.dfd != -ENOENT) {
		fcp_report_failed(&job, "cannot open", dest, x.dfd);
		x.n = 0;
	}
	if (x.n && (other_dest(&job, &x) || nothing_there(&job, &x))) {
		rc = FCP_EXIT_USAGE;
		x.n = 0;
	}
	verify_all(&x, o->threads > 0 ? o->threads : cpus > 0 ? 3 * (int)cpus : 3);
	/* DEST a directory whose files were checked: and the others? */
	if (x.n && x.dfd >= 0)
		extra = unrecorded(&job, &x);
	fcp_sys_reads_noatime(false);
	for (size_t i = 0; i < all; i++)
		free(x.v[i].path);
	if (x.unhashed)
		fprintf(job.err, "fastcp: %llu file%s recorded without a hash (by an older fastcp, "
			"or a copy that could not hash %s): not compared; a check against the "
			"source (fastcp --check --manifest FILE SOURCE DEST) records %s\n",
			(unsigned long long)x.unhashed, x.unhashed == 1 ? "" : "s",
			x.unhashed == 1 ? "it" : "them", x.unhashed == 1 ? "its hash" : "theirs");
	if (x.dfd >= 0)
		close(x.dfd);
	free(x.v);
	fcp_check_links_free(&job);
	fcp_limit_free(&job);
	fcp_manifest_close(&job);
	stats->files = job.c.files;
	stats->failed = job.c.failed + (r < 0);
	stats->differences = job.c.differs;
	stats->uncompared = x.unhashed + extra;
	if (rc)
		return rc;
	return stats->failed || stats->differences || stats->uncompared ? FCP_EXIT_PARTIAL
									  : FCP_EXIT_OK;
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
bool fcp_manifest_has(struct fcp_job *job, const char *key, const struct statx *st)
{
	return false;
}
void fcp_manifest_expected(struct fcp_job *job, const char *key, const struct statx *st,
			   const struct fcp_hash *h) { }
int fcp_manifest_verify(const struct fcp_options *o, const char *dest, struct fcp_stats *stats)
{
	memset(stats, 0, sizeof(*stats));
	fprintf(o->err ? o->err : stderr,
		"fastcp: --manifest is not available: fastcp was built without SQLite\n");
	return FCP_EXIT_USAGE;
}
#endif
