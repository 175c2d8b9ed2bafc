/*
 * progress.c - the status line on stderr, and the pre-scan that gives it
 * honest totals.
 *
 * Two threads of their own, never the copying workers: the workers only
 * bump the counters they bump anyway. The status thread reads them 10
 * times a second, draws one line (bar) or writes a full line every 5 s
 * (plain), and hands the totals to the events (observe.c) once a second.
 * The pre-scan walks the sources beside the copy (getdents + statx, at a
 * lower priority) counting what the copy will copy; until it has finished
 * the line says "counting" and shows no percent and no ETA, so neither
 * can run backwards once shown; after that the percent is clamped to
 * move only forward. The line is drawn under the job's message lock, and
 * report.c clears it there before any message: errors never tear it.
 */
#include "core/observe.h"
#include "base/grow.h"
#include "policy/pick.h"
#include "base/sys.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define TICK_MS 100            /* at most 10 redraws a second */
#define PLAIN_EVERY 50         /* ticks between plain lines: 5 s */
#define EVENTS_EVERY 10        /* ticks between progress events: 1 s */
#define WINDOW 30              /* ticks of the rates' sliding window: 3 s */
#define ITEM_WEIGHT 4096       /* an item counts as 4 KiB of data: a tree of
				  empty files moves the percent too */
#define LINKS_MAX (1 << 20)    /* inodes of several names remembered */

struct sample {
	double t;
	uint64_t bytes, files;
};

struct fcp_status {
	struct fcp_job *job;
	char *const *srcs;
	int nsrc;
	bool show, bar;                 /* a line on stderr; redrawn in place */
	bool shown;                     /* the line is on stderr now (job's err_lock) */
	pthread_t draw_thread, scan_thread;
	bool drawing, scanning;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool stopping;                  /* under lock */
	atomic_bool scan_stop, counted, told;
	/* Written by the pre-scan only; read once counted is set. */
	uint64_t files_total, bytes_total, dirs_total;
	bool incomplete;                /* too deep to count: no totals */
	uint64_t *links;                /* (dev, ino) hashes of files with
					   several names, counted once */
	size_t nlinks;
	struct timespec t0;
	struct sample win[WINDOW];
	unsigned ticks;
	double percent;                 /* the highest shown */
};

/* Is entry name of d copied (its getdents type, *st filled when so)? The
 * one place the pre-scan decides it, by the copy's own decisions, so that
 * its totals count what the copy will: the filters (--exclude, --gitignore,
 * --exclude-caches, sizes, times) as the walk asks them (fcp_plan_pick, an
 * excluded directory not entered), then symlinks left out under
 * --symlinks=skip. d NULL: an operand, which no filter leaves out. */
static bool wanted(const struct fcp_status *p, struct fcp_dir *d, int dfd, const char *name,
		   unsigned char type, struct statx *st)
{
	const struct fcp_options *o = p->job->o;

	if (d && fcp_options_filter(o) && fcp_plan_pick(p->job, d, name, &type) != FCP_PICK_COPY)
		return false;
	if (fcp_sys_statx(dfd, name, o->symlinks == FCP_SYMLINKS_FOLLOW ? 0 : AT_SYMLINK_NOFOLLOW,
			  STATX_BASIC_STATS, st) < 0)
		return false; /* the copy fails it, and says why */
	return !(S_ISLNK(st->stx_mode) && o->symlinks == FCP_SYMLINKS_SKIP);
}

/* Is directory d read (entered), as the walk decides it (fcp_plan_reads:
 * not a mount point under -x; its .gitignore read)? d->src_fd is open. */
static bool entered(const struct fcp_status *p, struct fcp_dir *d)
{
	return fcp_plan_reads(p->job, d);
}

/* A file of several names: its bytes once (it is copied once, its other
 * names linked). Open addressing on a hash of dev and ino; a full table
 * counts the bytes again rather than grow without bound. */
static bool first_name(struct fcp_status *p, const struct statx *st)
{
	uint64_t k = (fcp_statx_dev(st) * 0x9e3779b97f4a7c15ull) ^ st->stx_ino, i;

	k |= 1; /* 0 is an empty slot */
	if (!p->links && !(p->links = calloc(LINKS_MAX, sizeof(*p->links))))
		return true;
	if (p->nlinks >= LINKS_MAX / 2)
		return true;
	for (i = k % LINKS_MAX; p->links[i]; i = (i + 1) % LINKS_MAX)
		if (p->links[i] == k)
			return false;
	p->links[i] = k;
	p->nlinks++;
	return true;
}

struct frame {
	const struct frame *up;
	uint64_t dev, ino;
};

static void count(struct fcp_status *p, const struct statx *st)
{
	p->files_total++;
	if (S_ISREG(st->stx_mode) && (st->stx_nlink < 2 ||
				      !(p->job->o->preserve & FCP_PRESERVE_LINKS) || first_name(p, st)))
		p->bytes_total += st->stx_size;
}

static bool in_loop(const struct frame *up, const struct statx *st)
{
	for (const struct frame *f = up; f; f = f->up)
		if (f->ino == st->stx_ino && f->dev == fcp_statx_dev(st))
			return true; /* met again through a symlink (-L): the copy reports it */
	return false;
}

/* A subdirectory to enter once its parent is closed: its identity, for
 * the loop check under -L, then its name. */
struct sub {
	uint64_t dev, ino;
	uint32_t dev_major, dev_minor; /* for -x (fcp_plan_reads) */
	char name[];
};

/* Count the entries of the directory rel (len bytes; "" is the operand)
 * beneath root, then enter its subdirectories. me: the directory as the
 * filters see it (its parent, name, depth and statx). Each directory is read
 * whole and closed before its subdirectories are opened, by their path
 * beneath the operand: the pre-scan holds two descriptors at any depth
 * (the copy's budget of descriptors is not touched) and, unless symlinks
 * are followed (-L), opens nothing through a symlink (RESOLVE_NO_SYMLINKS). */
static void scan_dir(struct fcp_status *p, int root, char *rel, size_t len,
		     const struct frame *up, struct fcp_dir *me)
{
	bool follow = p->job->o->symlinks == FCP_SYMLINKS_FOLLOW;
	int fd = !len ? fcp_sys_dup(root)
	       : follow ? fcp_sys_openat(root, rel, O_RDONLY | O_DIRECTORY, 0)
			: fcp_sys_open_beneath(root, rel, O_RDONLY | O_DIRECTORY, 0);
	struct sub **subs = NULL, **more;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *dir;

	me->src_fd = fd;
	if (fd >= 0 && !entered(p, me)) {
		close(fd);
		return;
	}
	if (fd < 0 || !(dir = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return; /* the copy fails it too, and says why */
	}
	while (!atomic_load(&p->scan_stop) && (de = readdir(dir))) {
		struct statx st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    !wanted(p, me, dirfd(dir), de->d_name, de->d_type, &st))
			continue;
		if (!S_ISDIR(st.stx_mode)) {
			count(p, &st);
			continue;
		}
		if (in_loop(up, &st))
			continue;
		p->dirs_total++;
		if (!(more = fcp_grow(subs, &cap, n + 1, sizeof(*subs), 16)))
			break;
		subs = more;
		if (!(subs[n] = malloc(sizeof(struct sub) + strlen(de->d_name) + 1)))
			break;
		subs[n]->dev = fcp_statx_dev(&st);
		subs[n]->ino = st.stx_ino;
		subs[n]->dev_major = st.stx_dev_major;
		subs[n]->dev_minor = st.stx_dev_minor;
		strcpy(subs[n++]->name, de->d_name);
	}
	if (de) /* stopped, or out of memory: what is left is not counted */
		p->incomplete = true;
	closedir(dir);
	me->src_fd = -1;
	/* On the heap: a tree may be deep, and this thread's stack is not. */
	struct fcp_dir *sd = calloc(1, sizeof(*sd));
	if (!sd && n)
		p->incomplete = true;
	for (size_t i = 0; sd && i < n; i++) {
		size_t k = strlen(subs[i]->name);
		struct frame f = { up, subs[i]->dev, subs[i]->ino };

		if (len + k + 2 > PATH_MAX) {
			p->incomplete = true; /* too deep to name: no totals, never guessed */
		} else if (!atomic_load(&p->scan_stop)) {
			snprintf(rel + len, PATH_MAX - len, "%s%s", len ? "/" : "", subs[i]->name);
			*sd = (struct fcp_dir){ .parent = me, .name = subs[i]->name,
						.depth = me->depth + 1, .counting = true };
			sd->st.stx_dev_major = subs[i]->dev_major;
			sd->st.stx_dev_minor = subs[i]->dev_minor;
			scan_dir(p, root, rel, len + k + (len ? 1 : 0), &f, sd);
			fcp_plan_dir_free(sd);
			rel[len] = 0;
		}
	}
	for (size_t i = 0; i < n; i++)
		free(subs[i]);
	free(sd);
	free(subs);
}

/* One operand, followed as the copy follows it: only under -L. */
static void scan_operand(struct fcp_status *p, const char *src, char *rel)
{
	bool follow = p->job->o->symlinks == FCP_SYMLINKS_FOLLOW;
	struct statx st;
	int root;

	if (!wanted(p, NULL, AT_FDCWD, src, DT_UNKNOWN, &st))
		return;
	if (!S_ISDIR(st.stx_mode)) {
		count(p, &st);
		return;
	}
	p->dirs_total++;
	root = fcp_sys_openat(AT_FDCWD, src, O_RDONLY | O_DIRECTORY | (follow ? 0 : O_NOFOLLOW), 0);
	if (root < 0)
		return;
	struct frame me = { NULL, fcp_statx_dev(&st), st.stx_ino };
	struct fcp_dir top = { .name = (char *)src, .depth = 0, .st = st, .counting = true };
	rel[0] = 0;
	scan_dir(p, root, rel, 0, &me, &top);
	fcp_plan_dir_free(&top);
	close(root);
}

static void *scan_main(void *arg)
{
	struct fcp_status *p = arg;
	char *rel = malloc(PATH_MAX);

	/* Beside the copy, not before it: the copy goes first. */
	setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 10);
	for (int i = 0; rel && i < p->nsrc && !atomic_load(&p->scan_stop); i++)
		scan_operand(p, p->srcs[i], rel);
	free(rel);
	free(p->links);
	p->links = NULL;
	if (rel && !atomic_load(&p->scan_stop) && !p->incomplete)
		atomic_store(&p->counted, true);
	return NULL;
}

static double now_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Read the counters into t, and the rates over the sliding window. */
static void snapshot(struct fcp_status *p, struct fcp_totals *t)
{
	struct fcp_counters *c = &p->job->c;
	struct sample *cur = &p->win[p->ticks % WINDOW], *old;

	memset(t, 0, sizeof(*t));
	t->elapsed = now_since(&p->t0);
	t->bytes_done = c->bytes + c->holes + c->settled_bytes;
	t->files_done = c->files + c->hardlinks + c->symlinks + c->specials + c->unchanged +
			c->updated + c->failed + c->not_copied;
	*cur = (struct sample){ t->elapsed, t->bytes_done, t->files_done };
	old = &p->win[p->ticks >= WINDOW - 1 ? (p->ticks + 1) % WINDOW : 0];
	if (cur->t - old->t > 0.05) {
		t->bytes_rate = (cur->bytes - old->bytes) / (cur->t - old->t);
		t->files_rate = (cur->files - old->files) / (cur->t - old->t);
	}
	t->counting = !atomic_load(&p->counted);
	t->eta = -1;
	if (t->counting)
		return;
	t->files_total = p->files_total;
	t->bytes_total = p->bytes_total;
	t->dirs_total = p->dirs_total;
	/* Counted items that were not there when counted (or counted by
	 * more names) must not carry the line past its end. */
	double total = t->bytes_total + (double)ITEM_WEIGHT * t->files_total;
	double done = t->bytes_done + (double)ITEM_WEIGHT * t->files_done;
	double rate = t->bytes_rate + ITEM_WEIGHT * t->files_rate;
	if (done > total)
		done = total;
	t->percent = total > 0 ? 100 * done / total : 100;
	if (t->percent < p->percent)
		t->percent = p->percent;
	p->percent = t->percent;
	if (rate > 0)
		t->eta = (total - done) / rate;
}

static void human(double v, char *buf, size_t len)
{
	const char *unit[] = { "B", "kB", "MB", "GB", "TB" };
	int u = 0;

	while (v >= 1000 && u < 4) {
		v /= 1000;
		u++;
	}
	snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", v, unit[u]);
}

static void clock_text(double s, char *buf, size_t len)
{
	long t = (long)(s + 0.5);

	if (t >= 3600)
		snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(buf, len, "%ld:%02ld", t / 60, t % 60);
}

/* "  42% 12.3 MB/30.0 MB 1200/5000 files 45.6 MB/s 1200 files/s 0:12 ETA 0:17",
 * in width columns at most (0: no bound): on a narrow terminal the fields
 * between the percent and the ETA go first, the least read first, so the
 * two a person looks for stay. */
static void line_text(const struct fcp_totals *t, char *buf, size_t len, int width)
{
	char done[32], total[32], rate[32], el[32], eta[32];

	human((double)t->bytes_done, done, sizeof(done));
	human((double)t->bytes_total, total, sizeof(total));
	human(t->bytes_rate, rate, sizeof(rate));
	clock_text(t->elapsed, el, sizeof(el));
	if (t->counting) {
		snprintf(buf, len, "counting... %s, %llu file%s, %s/s, %.0f files/s, %s", done,
			 (unsigned long long)t->files_done, t->files_done == 1 ? "" : "s", rate,
			 t->files_rate, el);
		return;
	}
	if (t->eta >= 0)
		clock_text(t->eta, eta, sizeof(eta));
	else
		snprintf(eta, sizeof(eta), "-:--");
	char field[5][64];
	/* Dropped in this order where the line is too long. */
	static const int drop[5] = { 3, 4, 1, 2, 0 };
	bool on[5] = { true, true, true, true, true };
	unsigned long long files = t->files_done < t->files_total ? t->files_done : t->files_total;

	snprintf(field[0], sizeof(field[0]), "%s/%s", done, total);
	snprintf(field[1], sizeof(field[1]), "%llu/%llu files", files,
		 (unsigned long long)t->files_total);
	snprintf(field[2], sizeof(field[2]), "%s/s", rate);
	snprintf(field[3], sizeof(field[3]), "%.0f files/s", t->files_rate);
	snprintf(field[4], sizeof(field[4]), "%s", el);
	for (int k = 0; k <= 5; k++) {
		int n = snprintf(buf, len, "%3.0f%%",
				 t->percent >= 99.5 && t->percent < 100 ? 99 : t->percent);

		bool first = true;

		for (int i = 0; i < 5; i++)
			if (on[i] && n >= 0 && (size_t)n < len) {
				n += snprintf(buf + n, len - (size_t)n, "%s %s", first ? "" : ",",
					      field[i]);
				first = false;
			}
		if (n >= 0 && (size_t)n < len)
			n += snprintf(buf + n, len - (size_t)n, "%sETA %s", first ? " " : ", ",
				      eta);
		if (width <= 0 || n <= width || k == 5)
			return;
		on[drop[k]] = false;
	}
}

static int columns(void)
{
	struct winsize ws;

	return ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1 ? ws.ws_col : 80;
}

static void draw(struct fcp_status *p, const struct fcp_totals *t)
{
	char text[320];
	int width = columns() - 1; /* the last column would wrap some terminals */

	line_text(t, text, sizeof(text), p->bar ? (width > 0 ? width : 79) : 0);
	pthread_mutex_lock(&p->job->err_lock);
	if (p->bar) {
		/* Cut to the terminal: a wrapped line cannot be redrawn. */
		fprintf(stderr, "\r%.*s\033[K", width > 0 ? width : 79, text);
		p->shown = true;
		fcp_signal_bar(true);
	} else {
		fprintf(stderr, "fastcp: %s\n", text);
	}
	fflush(stderr);
	pthread_mutex_unlock(&p->job->err_lock);
}

static void *draw_main(void *arg)
{
	struct fcp_status *p = arg;
	struct fcp_totals t;
	bool stop = false;

	while (!stop) {
		struct timespec until;

		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += TICK_MS * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_mutex_lock(&p->lock);
		while (!p->stopping && pthread_cond_timedwait(&p->wake, &p->lock, &until) == 0)
			;
		stop = p->stopping;
		pthread_mutex_unlock(&p->lock);
		if (stop)
			break;
		snapshot(p, &t);
		p->ticks++;
		if (!t.counting && !atomic_exchange(&p->told, true))
			fcp_obs_totals(p->job, &t);
		if (p->ticks % EVENTS_EVERY == 0)
			fcp_obs_progress(p->job, &t);
		if (p->show && (p->bar || p->ticks % PLAIN_EVERY == 0))
			draw(p, &t);
	}
	return NULL;
}

int fcp_progress_start(struct fcp_job *job, char *const *srcs, int nsrc)
{
	const struct fcp_options *o = job->o;
	bool tty = isatty(STDERR_FILENO);
	bool bar = o->progress == FCP_PROGRESS_BAR || (o->progress == FCP_PROGRESS_AUTO && tty);
	bool show = bar || o->progress == FCP_PROGRESS_PLAIN;
	struct fcp_status *p;
	sigset_t stop, old;

	job->progress = NULL;
	/* -v and --log need no totals: no threads for them. */
	if (!show && !o->events)
		return 0;
	if (!(p = calloc(1, sizeof(*p))))
		return -ENOMEM;
	p->job = job;
	p->srcs = srcs;
	p->nsrc = nsrc;
	p->show = show;
	p->bar = bar;
	clock_gettime(CLOCK_MONOTONIC, &p->t0);
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->wake, NULL);
	/* The stopping signals go to the copy's threads, as before: these
	 * two inherit a mask without them, so that no statx of the pre-scan
	 * is cut short by EINTR. */
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &stop, &old);
	/* Known before the first draw, so that a message clears that line. */
	pthread_mutex_lock(&job->err_lock);
	job->progress = p;
	pthread_mutex_unlock(&job->err_lock);
	p->scanning = pthread_create(&p->scan_thread, NULL, scan_main, p) == 0;
	p->drawing = pthread_create(&p->draw_thread, NULL, draw_main, p) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return 0;
}

void fcp_progress_stop(struct fcp_job *job)
{
	struct fcp_status *p = job->progress;

	if (!p)
		return;
	atomic_store(&p->scan_stop, true);
	pthread_mutex_lock(&p->lock);
	p->stopping = true;
	pthread_cond_signal(&p->wake);
	pthread_mutex_unlock(&p->lock);
	if (p->drawing)
		pthread_join(p->draw_thread, NULL);
	if (p->scanning)
		pthread_join(p->scan_thread, NULL);
	/* Gone under the lock that a message takes to clear the line first
	 * (fcp_progress_clear): a late message finds no line, not a freed one. */
	pthread_mutex_lock(&job->err_lock);
	fcp_progress_clear(job);
	fflush(stderr);
	job->progress = NULL;
	pthread_mutex_unlock(&job->err_lock);
	pthread_cond_destroy(&p->wake);
	pthread_mutex_destroy(&p->lock);
	free(p->links);
	free(p);
}

void fcp_progress_clear(struct fcp_job *job)
{
	struct fcp_status *p = job->progress;

	if (!p || !p->shown)
		return;
	fputs("\r\033[K", stderr);
	p->shown = false;
	fcp_signal_bar(false);
}
