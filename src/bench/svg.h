/*
 * svg.h - charts for --svg FILE: line charts and a horizontal bar chart.
 *
 * The output is plain SVG 1.1 that opens in any browser, with no scripts
 * and no external resources. Each chart has labelled axes with units
 * (<g class="axis x"> / <g class="axis y">) and one <g class="series">
 * per line or bar set, so tests and scripts can find them.
 *
 * Line charts use a categorical x axis: the callers' x values double at
 * each step (block sizes, spans), so even spacing is a log2 scale.
 */
#ifndef FCP_BENCH_SVG_H
#define FCP_BENCH_SVG_H

#include <stdbool.h>

struct svg_series {
	const char *name;
	const double *y; /* one value per x point; NAN where not measured */
};

struct svg_line_chart {
	const char *title;
	const char *xlabel, *ylabel; /* with units, e.g. "MB/s" */
	int npoints;
	const char *const *xticks;   /* npoints labels */
	int nseries;
	const struct svg_series *series;
};

struct svg_bar {
	const char *label;
	double value, lo, hi; /* bar and whisker; ignored when failed */
	bool failed;
};

struct svg_bar_chart {
	const char *title;
	const char *xlabel; /* the value axis, with units */
	int nbars;
	const struct svg_bar *bars;
};

/* Write the charts stacked vertically into one SVG file. 0 or -errno. */
int svg_write_lines(const char *path, const struct svg_line_chart *charts, int ncharts);
int svg_write_bars(const char *path, const struct svg_bar_chart *chart);

#endif
