/* todo.c - modes not written yet; removed as each lands. */
#include "bench.h"

int bench_disk_main(int argc, char **argv) { bench_err("disk: not implemented yet"); return 2; }
int bench_files_main(int argc, char **argv) { bench_err("files: not implemented yet"); return 2; }
