/* Unit tests for fcp_backup_name_like: the names --delete keeps under -b.
 * NAME + suffix (~ by default, -S, $SIMPLE_BACKUP_SUFFIX) and NAME.~N~
 * (N from 1) are backups, after at least one character of NAME; nothing
 * is without -b. */
#include "backup.h"
#include "check.h"

#include <stdlib.h>

int main(void)
{
	struct fcp_options o = { 0 };

	unsetenv("SIMPLE_BACKUP_SUFFIX");
	o.backup = FCP_BACKUP_NONE;
	CHECK(!fcp_backup_name_like(&o, "f~"));
	CHECK(!fcp_backup_name_like(&o, "f.~1~"));
	o.backup = FCP_BACKUP_EXISTING;
	CHECK(fcp_backup_name_like(&o, "f~"));
	CHECK(fcp_backup_name_like(&o, "f.~0~")); /* ends in ~ */
	CHECK(fcp_backup_name_like(&o, "photo.jpg.~12~"));
	CHECK(!fcp_backup_name_like(&o, "~"));
	CHECK(!fcp_backup_name_like(&o, "f"));
	CHECK(!fcp_backup_name_like(&o, "f.bak"));
	o.backup_suffix = ".bak";
	CHECK(fcp_backup_name_like(&o, "f.bak"));
	CHECK(!fcp_backup_name_like(&o, ".bak"));
	CHECK(!fcp_backup_name_like(&o, "f~"));
	CHECK(!fcp_backup_name_like(&o, "f.~0~"));
	CHECK(!fcp_backup_name_like(&o, ".~1~"));
	CHECK(!fcp_backup_name_like(&o, "f.~~"));
	CHECK(!fcp_backup_name_like(&o, "f.~1x~"));
	CHECK(fcp_backup_name_like(&o, "f.~1~"));
	CHECK(fcp_backup_name_like(&o, "a.~10~"));
	o.backup = FCP_BACKUP_NUMBERED;
	CHECK(fcp_backup_name_like(&o, "f.bak") && fcp_backup_name_like(&o, "f.~3~"));
	o.backup_suffix = NULL;
	setenv("SIMPLE_BACKUP_SUFFIX", ".orig", 1);
	CHECK(fcp_backup_name_like(&o, "f.orig") && !fcp_backup_name_like(&o, "f~"));
	CHECK_DONE();
}
