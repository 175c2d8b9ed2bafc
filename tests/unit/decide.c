/* Unit tests for the decision (lib/policy/decide.c), from a table: each case is
 * the options, the source's statx, the statx of what is at its
 * destination (or nothing), and the answers known so far, with the action
 * it must give, or the question it must ask first. No file is made, no
 * worker or thread is started: the decision is a function of its inputs. */
#include "check.h"
#include "policy/decide.h"
#include "core/observe.h"

#include <sys/stat.h>

/* One side: its type ('f' file, 'd' directory, 'l' symlink, 'c' device,
 * 0 nothing there), size, mtime (s, ns), permission bits, names, inode. */
struct side {
	char type;
	unsigned long long size;
	long long sec;
	unsigned nsec, mode, nlink;
	unsigned long long ino;
};

struct tcase {
	const char *what;
	const char *opts; /* s --sync, c --checksum, n -n, u -u, i -i, d --dry-run,
			     m --move, z --size-only, p --in-place,
			     a --attributes-only, h --dedup=hardlink, x xattrs kept,
			     t a taken-up copy, N a directory made by this job,
			     r a --move again into a copy left marked,
			     k -s (symbolic links), K -l (hard links) */
	struct side src, dst;
	const char *answers; /* "C+" content same, "X-" xattrs differ, T target, M mark, U -i,
				W written by this run, L the symlink -s makes is there,
				S the shape differs (holes filled, links taken);
				S is answered "-" unless given */
	enum fcp_action act;
	enum fcp_question ask; /* FCP_Q_NONE: act is the decision */
};

#define F(size, sec) { 'f', size, sec, 0, 0644, 1, 1 }
#define FM(size, sec, mode) { 'f', size, sec, 0, mode, 1, 1 }
#define FL(size, sec, nlink) { 'f', size, sec, 0, 0644, nlink, 2 }
#define FI(size, sec, ino) { 'f', size, sec, 0, 0644, 1, ino }
#define D { 'd', 4096, 100, 0, 0755, 2, 3 }
#define L(sec) { 'l', 2, sec, 0, 0777, 1, 4 }
#define C(minor) { 'c', 0, 100, 0, 0600, 1, minor }
#define NONE { 0, 0, 0, 0, 0, 0, 0 }

static const struct tcase cases[] = {
	/* The shape --check looks at beyond the bytes. */
	{ "same bytes, shape asked", "s", F(3, 100), F(3, 100), "S0", FCP_ACT_COPY, FCP_Q_SHAPE },
	{ "same bytes, holes filled", "s", F(3, 100), F(3, 100), "S+", FCP_ACT_REPLACE, 0 },
	{ "shape not asked where the bytes differ", "s", F(4, 100), F(3, 100), "S0",
	  FCP_ACT_REPLACE, 0 },
	/* -s and -l: links, not copies. */
	{ "-s over a copy: asked", "sk", F(3, 100), F(3, 100), "", FCP_ACT_COPY, FCP_Q_LINKED },
	{ "-s over a copy", "sk", F(3, 100), F(3, 100), "L-", FCP_ACT_REPLACE, 0 },
	{ "-s, its symlink there", "sk", F(3, 100), L(100), "L+", FCP_ACT_SKIP, 0 },
	{ "-s -n over a copy", "kn", F(3, 100), F(3, 100), "L-M-", FCP_ACT_KEEP, 0 },
	{ "-l over a copy", "sK", FI(3, 100, 1), FI(3, 100, 9), "", FCP_ACT_REPLACE, 0 },
	{ "-l, the source's inode there", "sK", FI(3, 100, 1), FI(3, 100, 1), "", FCP_ACT_SKIP, 0 },
	/* Without --sync or cp's guards nothing is looked at. */
	{ "plain copy over a file", "", F(3, 100), F(3, 100), "", FCP_ACT_COPY, 0 },
	{ "nothing there", "s", F(3, 100), NONE, "", FCP_ACT_COPY, 0 },
	{ "a directory made by this job", "sN", F(3, 100), F(3, 100), "", FCP_ACT_COPY, 0 },
	/* The quick check. */
	{ "same size and mtime", "s", F(3, 100), F(3, 100), "", FCP_ACT_SKIP, 0 },
	{ "other size", "s", F(4, 100), F(3, 100), "", FCP_ACT_REPLACE, 0 },
	{ "other mtime", "s", F(3, 100), F(3, 101), "", FCP_ACT_REPLACE, 0 },
	{ "other mtime, ns only", "s", F(3, 100), { 'f', 3, 100, 1, 0644, 1, 1 }, "",
	  FCP_ACT_REPLACE, 0 },
	{ "other mode only", "s", FM(3, 100, 0644), FM(3, 100, 0600), "", FCP_ACT_META, 0 },
	{ "other mode, more names", "s", FM(3, 100, 0644), { 'f', 3, 100, 0, 0600, 2, 1 }, "",
	  FCP_ACT_REPLACE, 0 },
	{ "xattrs kept: asked last", "sx", F(3, 100), F(3, 100), "", FCP_ACT_COPY, FCP_Q_XATTRS },
	{ "xattrs the same", "sx", F(3, 100), F(3, 100), "X+", FCP_ACT_SKIP, 0 },
	{ "xattrs differ", "sx", F(3, 100), F(3, 100), "X-", FCP_ACT_META, 0 },
	{ "xattrs not asked where the mode differs", "sx", FM(3, 100, 0644), FM(3, 100, 0600), "",
	  FCP_ACT_META, 0 },
	{ "--size-only: other mtime", "sz", F(3, 100), F(3, 101), "", FCP_ACT_META, 0 },
	{ "--size-only in a taken-up copy", "szt", F(3, 100), F(3, 101), "", FCP_ACT_REPLACE, 0 },
	/* Types. */
	{ "a directory in the way of a file", "s", F(3, 100), D, "", FCP_ACT_REPLACE, 0 },
	{ "a file in the way of a directory", "s", D, F(3, 100), "", FCP_ACT_REPLACE, 0 },
	{ "a directory there: gone into", "s", D, D, "", FCP_ACT_SKIP, 0 },
	{ "a symlink: its target asked", "s", L(100), L(100), "", FCP_ACT_COPY, FCP_Q_TARGET },
	{ "a symlink, the same target", "s", L(100), L(100), "T+", FCP_ACT_SKIP, 0 },
	{ "a symlink, another target", "s", L(100), L(100), "T-", FCP_ACT_REPLACE, 0 },
	{ "a device, the same number", "s", C(3), C(3), "", FCP_ACT_SKIP, 0 },
	{ "a device, another number", "s", { 'c', 0, 100, 0, 0600, 1, 3 },
	  { 'c', 0, 100, 0, 0600, 1, 5 }, "", FCP_ACT_REPLACE, 0 },
	/* --checksum: a read decides the same size. */
	{ "--checksum needs a read", "c", F(3, 100), F(3, 101), "", FCP_ACT_COPY, FCP_Q_CONTENT },
	{ "--checksum, other size: no read", "c", F(4, 100), F(3, 100), "", FCP_ACT_REPLACE, 0 },
	{ "--checksum, the same bytes, another mtime", "c", F(3, 100), F(3, 101), "C+",
	  FCP_ACT_META, 0 },
	{ "--checksum, the same bytes and mtime", "c", F(3, 100), F(3, 100), "C+", FCP_ACT_SKIP,
	  0 },
	{ "--checksum, other bytes", "c", F(3, 100), F(3, 100), "C-", FCP_ACT_REPLACE, 0 },
	/* --move trusts the quick check only with the content. */
	{ "--move --sync: the content asked", "sm", F(3, 100), F(3, 100), "", FCP_ACT_COPY,
	  FCP_Q_CONTENT },
	{ "--move --sync: other bytes", "sm", F(3, 100), F(3, 100), "C-", FCP_ACT_REPLACE, 0 },
	{ "--move --sync: the same bytes", "sm", F(3, 100), F(3, 100), "C+", FCP_ACT_SKIP, 0 },
	/* cp's guards. */
	{ "-n: a file there, its mark asked", "n", F(4, 100), F(3, 100), "", FCP_ACT_COPY,
	  FCP_Q_MARK },
	{ "-n keeps a file", "n", F(4, 100), F(3, 100), "M-", FCP_ACT_KEEP, 0 },
	{ "-n: a file half rewritten", "n", F(4, 100), F(3, 100), "M+", FCP_ACT_REPLACE, 0 },
	{ "-n keeps a symlink in a file's way", "n", F(4, 100), L(100), "", FCP_ACT_KEEP, 0 },
	{ "-n keeps a directory in the way", "n", F(4, 100), D, "", FCP_ACT_KEEP, 0 },
	{ "-n -s keeps an older file", "ns", F(4, 200), F(3, 100), "M-", FCP_ACT_KEEP, 0 },
	{ "-u replaces an older file", "u", F(3, 200), F(3, 100), "", FCP_ACT_REPLACE, 0 },
	{ "-u: a newer file, its mark asked", "u", F(3, 100), F(3, 200), "", FCP_ACT_COPY,
	  FCP_Q_MARK },
	{ "-u keeps a newer file", "u", F(3, 100), F(3, 200), "M-", FCP_ACT_KEEP, 0 },
	{ "-u keeps one as new", "u", F(3, 100), F(3, 100), "M-", FCP_ACT_KEEP, 0 },
	{ "-u: a newer file half rewritten", "u", F(3, 100), F(3, 200), "M+", FCP_ACT_REPLACE, 0 },
	{ "-u keeps a newer symlink in a file's way", "u", F(3, 100), L(200), "", FCP_ACT_KEEP, 0 },
	{ "-u: a directory in the way is no keep", "u", F(3, 100), D, "", FCP_ACT_REPLACE, 0 },
	{ "-i asks", "i", F(3, 100), F(3, 100), "", FCP_ACT_COPY, FCP_Q_USER },
	{ "-i: yes", "i", F(3, 100), F(3, 100), "U+", FCP_ACT_REPLACE, 0 },
	{ "-i: no", "i", F(3, 100), F(3, 100), "U-", FCP_ACT_KEEP, 0 },
	{ "-i in a dry run asks nothing", "id", F(3, 100), F(3, 100), "", FCP_ACT_REPLACE, 0 },
	{ "-i -s: an up-to-date file is not asked for", "is", F(3, 100), F(3, 100), "",
	  FCP_ACT_SKIP, 0 },
	{ "--attributes-only: a file there, its mark asked", "a", F(3, 100), FI(5, 200, 9), "",
	  FCP_ACT_COPY, FCP_Q_MARK },
	{ "--attributes-only: metadata of the same type", "a", F(3, 100), FI(5, 200, 9), "M-",
	  FCP_ACT_META, 0 },
	{ "--attributes-only: a file half rewritten gets none (refused)", "a", F(3, 100),
	  FI(5, 200, 9), "M+", FCP_ACT_REPLACE, 0 },
	{ "--attributes-only: the source itself", "a", F(3, 100), F(3, 100), "", FCP_ACT_SKIP, 0 },
	{ "a taken-up copy: the quick check, whatever -n says", "nt", F(3, 100), F(3, 100), "",
	  FCP_ACT_SKIP, 0 },
	{ "a taken-up copy: a file cut short is copied", "nt", F(4, 100), F(3, 100), "",
	  FCP_ACT_REPLACE, 0 },
	{ "a dry run looks even without --sync", "d", F(3, 100), F(3, 100), "", FCP_ACT_REPLACE,
	  0 },
	/* --in-place: a half rewrite is copied again. */
	{ "--in-place: the mark asked", "sp", F(3, 100), F(3, 100), "", FCP_ACT_COPY, FCP_Q_MARK },
	{ "--in-place: marked", "sp", F(3, 100), F(3, 100), "M+", FCP_ACT_REPLACE, 0 },
	{ "--in-place: unmarked", "sp", F(3, 100), F(3, 100), "M-", FCP_ACT_SKIP, 0 },
	/* --dedup=hardlink: a name of another file's copy. */
	{ "--dedup=hardlink: a linked copy asked", "sh", F(3, 100), FL(3, 101, 2), "",
	  FCP_ACT_COPY, FCP_Q_CONTENT },
	{ "--dedup=hardlink: a linked copy", "sh", F(3, 100), FL(3, 101, 2), "C+", FCP_ACT_SKIP,
	  0 },
	{ "--dedup=hardlink: other bytes", "sh", F(3, 100), FL(3, 101, 2), "C-", FCP_ACT_REPLACE,
	  0 },
	{ "--dedup=hardlink: one name only", "sh", F(3, 100), FL(3, 101, 1), "", FCP_ACT_REPLACE,
	  0 },
	/* --move again into a copy of SOURCEs of one name left marked. */
	{ "--move again: who wrote it asked", "smr", F(3, 100), F(4, 200), "", FCP_ACT_COPY,
	  FCP_Q_WROTE },
	{ "--move again: another's file kept", "smr", F(3, 100), F(4, 200), "W-", FCP_ACT_KEEP, 0 },
	{ "--move again: this run's file replaced", "smr", F(3, 100), F(4, 200), "W+",
	  FCP_ACT_REPLACE, 0 },
	{ "--move again: same size, content asked", "smr", F(3, 100), F(3, 200), "W-",
	  FCP_ACT_COPY, FCP_Q_CONTENT },
	{ "--move again: same bytes, not kept", "smr", F(3, 100), F(3, 200), "W-C+",
	  FCP_ACT_REPLACE, 0 },
	{ "--move again: other bytes of one size, kept", "smr", F(3, 100), F(3, 200), "W-C-",
	  FCP_ACT_KEEP, 0 },
	{ "--move without the mark: replaced", "sm", F(3, 100), F(4, 200), "", FCP_ACT_REPLACE, 0 },
};

static struct statx statx_of(const struct side *s)
{
	static const unsigned types[128] = { ['f'] = S_IFREG, ['d'] = S_IFDIR, ['l'] = S_IFLNK,
					     ['c'] = S_IFCHR };
	struct statx st = { .stx_mode = (unsigned short)(types[(int)s->type] | s->mode),
			    .stx_size = s->size, .stx_nlink = s->nlink, .stx_ino = s->ino,
			    .stx_uid = 1000, .stx_gid = 1000 };

	st.stx_mtime.tv_sec = s->sec;
	st.stx_mtime.tv_nsec = s->nsec;
	/* A device's number is its ino here: one field less in the table. */
	if (s->type == 'c')
		st.stx_rdev_major = 1, st.stx_rdev_minor = (unsigned)s->ino;
	return st;
}

static void options_of(const char *opts, struct fcp_options *o, struct fcp_facts *f)
{
	fcp_options_init(o);
	o->preserve = FCP_PRESERVE_MODE | FCP_PRESERVE_OWNER | FCP_PRESERVE_TIMES;
	f->may_exist = true;
	for (const char *c = opts; *c; c++) {
		switch (*c) {
		case 's': o->sync = true; break;
		case 'c': o->checksum = true; break;
		case 'n': o->update = FCP_UPDATE_NONE; break;
		case 'u': o->update = FCP_UPDATE_OLDER; break;
		case 'i': o->interactive = true; break;
		case 'd': o->dry_run = true; break;
		case 'm': o->move = true; break;
		case 'z': o->size_only = true; break;
		case 'p': o->in_place = true; break;
		case 'a': o->attributes_only = true; break;
		case 'h': o->dedup = FCP_DEDUP_HARDLINK; break;
		case 'x': o->preserve |= FCP_PRESERVE_XATTR; break;
		case 't': f->taken_up = true; break;
		case 'N': f->may_exist = false; break;
		case 'r': f->move_rerun = true; break;
		case 'k': o->make = FCP_MAKE_SYMLINK; break;
		case 'K': o->make = FCP_MAKE_HARDLINK; break;
		}
	}
}

static void answers_of(const char *a, struct fcp_facts *f)
{
	static const enum fcp_question q[128] = { ['C'] = FCP_Q_CONTENT, ['T'] = FCP_Q_TARGET,
						  ['X'] = FCP_Q_XATTRS, ['M'] = FCP_Q_MARK,
						  ['U'] = FCP_Q_USER, ['W'] = FCP_Q_WROTE,
						  ['L'] = FCP_Q_LINKED, ['S'] = FCP_Q_SHAPE };

	for (; a[0] && a[1]; a += 2)
		f->answer[q[(int)a[0]]] = a[1] == '+' ? 1 : a[1] == '0' ? 0 : -1;
}

static const char *const names[] = { "copy", "replace", "meta", "skip", "keep" };
static const char *const questions[] = { "none",  "content", "target", "xattrs",
					 "mark",  "user",    "wrote", "linked", "shape" };

static void run(const struct tcase *t)
{
	struct fcp_options o;
	struct fcp_facts f = { 0 };
	struct statx src = statx_of(&t->src), dst = statx_of(&t->dst);
	struct fcp_decision d;

	options_of(t->opts, &o, &f);
	f.src = &src;
	f.dst = t->dst.type ? &dst : NULL;
	f.answer[FCP_Q_SHAPE] = -1;
	answers_of(t->answers, &f);
	d = fcp_decide(&o, &f);
	check_count++;
	if (d.ask != t->ask || (!t->ask && d.act != t->act)) {
		check_failures++;
		fprintf(stderr, "%s: got %s (asks %s), want %s (asks %s)\n", t->what,
			names[d.act], questions[d.ask], names[t->act], questions[t->ask]);
	}
}

/* Every question asked is answered as a reader would, and asked once:
 * the loop plan.c runs ends, with one of the actions. */
static void ends(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fcp_options o;
		struct fcp_facts f = { 0 };
		struct statx src = statx_of(&cases[i].src), dst = statx_of(&cases[i].dst);
		struct fcp_decision d;
		int asked = 0;

		options_of(cases[i].opts, &o, &f);
		f.src = &src;
		f.dst = cases[i].dst.type ? &dst : NULL;
		while ((d = fcp_decide(&o, &f)).ask != FCP_Q_NONE && asked++ < FCP_Q_COUNT) {
			CHECK(f.answer[d.ask] == 0);
			f.answer[d.ask] = 1;
		}
		CHECK(d.ask == FCP_Q_NONE && d.act <= FCP_ACT_KEEP);
	}
}

int main(void)
{
	struct fcp_options o;
	struct statx a = statx_of(&(struct side)F(3, 100)), b = a;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run(&cases[i]);
	ends();

	/* Where the plan looks at all. */
	fcp_options_init(&o);
	CHECK(!fcp_decide_looks(&o, true, false, false));
	o.update = FCP_UPDATE_NONE;
	CHECK(fcp_decide_looks(&o, true, false, false));
	CHECK(!fcp_decide_looks(&o, true, false, true)); /* -n keeps, decides nothing */
	CHECK(!fcp_decide_looks(&o, false, false, false));
	o.sync = true;
	CHECK(fcp_decide_looks(&o, true, false, true));
	CHECK(!fcp_decide_looks(&o, false, false, true));
	fcp_options_init(&o);
	CHECK(fcp_decide_looks(&o, true, true, true)); /* a taken-up copy */
	o.dry_run = true;
	CHECK(fcp_decide_looks(&o, false, false, true));

	/* What -v says changed. */
	fcp_options_init(&o);
	b.stx_size = 4;
	b.stx_mtime.tv_nsec = 1;
	CHECK(fcp_decide_changes(&o, &a, &b, false) == (FCP_CHG_SIZE | FCP_CHG_TIME));
	b = a;
	b.stx_mode = S_IFDIR | 0755;
	CHECK(fcp_decide_changes(&o, &a, &b, true) == FCP_CHG_TYPE);
	b = a;
	b.stx_uid = 0;
	CHECK(fcp_decide_meta_diff(&o, true, &a, &b) == FCP_PRESERVE_OWNER);
	CHECK(fcp_decide_meta_diff(&o, false, &a, &b) == 0); /* only root gives owners */
	CHECK_DONE();
}
