/*
 * filter.c - libFuzzer target for the pattern matchers (lib/base/filter.c).
 *
 * The input is split at its first NUL (or newline) into a pattern and a
 * path. The pattern goes through the glob in both dialects, the whole
 * input is parsed as an --exclude-from file and as a .gitignore, and
 * both rule lists are matched against the path and each of its leading
 * parts. Besides crashes and leaks (ASan, UBSan), two properties are
 * checked: a pattern without any special character matches exactly the
 * text equal to it, and "*" matches a text exactly when it has no '/'.
 */
#include "base/filter.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static bool plain(const char *s)
{
	return !strpbrk(s, "*?[\\");
}

static void rules(const char *text, size_t len, bool git, const char *path)
{
	struct fcp_rules r = { .git = git };
	char *p = strdup(path);

	if (p && fcp_rules_parse(&r, text, len) == 0) {
		/* The path, and each directory above it. */
		for (char *s = p + strlen(p);; *s = 0) {
			fcp_rules_match(&r, p, false);
			fcp_rules_match(&r, p, true);
			if (!(s = strrchr(p, '/')))
				break;
		}
	}
	fcp_rules_free(&r);
	free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), *path;
	size_t n;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = 0;
	n = strcspn(buf, "\n"); /* also stops at the first NUL */
	path = n < size ? buf + n + 1 : buf + size;
	char pat[n + 1];
	memcpy(pat, buf, n);
	pat[n] = 0;

	for (unsigned flags = 0; flags <= FCP_GLOB_GIT; flags++) {
		bool m = fcp_glob_match(pat, path, flags);
		if (plain(pat) && m != !strcmp(pat, path))
			abort();
		if (!strcmp(pat, "*") && m != !strchr(path, '/'))
			abort();
	}
	rules(buf, size, false, path);
	rules(buf, size, true, path);
	free(buf);
	return 0;
}
