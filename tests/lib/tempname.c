/*
 * tempname DIR [RANDOM] - print the temporary name a run of fastcp would
 * make in the directory DIR (as leftovers of killed runs have), so that a
 * test can put one there without killing a run at the right moment; with
 * a RANDOM (hex), that job's.
 */
#include "core/job.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct fcp_job job = { 0 };
	char name[64];
	int fd;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: tempname DIR [RANDOM]\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY | O_DIRECTORY);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	job.tmp_random = argc == 3 ? (uint32_t)strtoul(argv[2], NULL, 16) : 0x01234567u;
	fcp_tmpname_prefix(job.tmp_random, job.tmp_prefix);
	fcp_tmpname_make(&job, fcp_tmpname_key(fd), 0, 1, name, sizeof(name));
	puts(name);
	close(fd);
	return 0;
}
