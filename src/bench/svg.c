/*
 * svg.c - see svg.h. Geometry is fixed (720 px wide charts) because the
 * charts are for reading, not for layout.
 */
#include "svg.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define W 720
#define H 380
#define ML 80  /* left margin: y tick labels and axis title */
#define MR 170 /* right margin: legend */
#define MT 40
#define MB 60

static const char *const colours[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
	"#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
};
#define NCOLOURS (sizeof(colours) / sizeof(colours[0]))

static void put_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default:
			if ((unsigned char)*s >= 0x20 || *s == '\t')
				fputc(*s, f);
		}
	}
}

static void text(FILE *f, double x, double y, const char *anchor, const char *extra,
		 const char *s)
{
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"%s>", x, y, anchor, extra);
	put_text(f, s);
	fputs("</text>\n", f);
}

/* A "nice" upper bound (1, 2 or 5 times a power of ten) and its step. */
static double nice_max(double max, double *step)
{
	double p, m;

	if (!(max > 0))
		max = 1;
	p = pow(10, floor(log10(max)));
	m = max / p;
	m = m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10;
	*step = m * p / 5;
	return m * p;
}

static void value_axis_y(FILE *f, int top, int h, int left, int w, double ymax,
			 const char *label)
{
	double step, y = nice_max(ymax, &step);
	char buf[32];

	fprintf(f, "<g class=\"axis y\">\n");
	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n",
		left, top, left, top + h);
	for (double v = 0; v <= y * 1.0001; v += step) {
		double py = top + h - v / y * h;

		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
			left, py, left + w, py);
		snprintf(buf, sizeof(buf), "%g", v);
		text(f, left - 6, py + 4, "end", "", buf);
	}
	fprintf(f, "<text transform=\"translate(%d,%d) rotate(-90)\" text-anchor=\"middle\">",
		left - 55, top + h / 2);
	put_text(f, label);
	fputs("</text>\n</g>\n", f);
}

static double series_max(const struct svg_line_chart *c)
{
	double m = 0;

	for (int s = 0; s < c->nseries; s++)
		for (int i = 0; i < c->npoints; i++)
			if (isfinite(c->series[s].y[i]) && c->series[s].y[i] > m)
				m = c->series[s].y[i];
	return m;
}

static void line_series(FILE *f, const struct svg_series *s, const char *colour,
			int npoints, int left, int top, int w, int h, double ymax)
{
	double dx = npoints > 1 ? (double)w / (npoints - 1) : 0;

	fprintf(f, "<g class=\"series\" data-name=\"");
	put_text(f, s->name);
	fprintf(f, "\" stroke=\"%s\" fill=\"%s\">\n<polyline fill=\"none\" points=\"",
		colour, colour);
	for (int i = 0; i < npoints; i++)
		if (isfinite(s->y[i]))
			fprintf(f, "%.1f,%.1f ", left + i * dx, top + h - s->y[i] / ymax * h);
	fputs("\"/>\n", f);
	for (int i = 0; i < npoints; i++)
		if (isfinite(s->y[i]))
			fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\"><title>%.4g</title></circle>\n",
				left + i * dx, top + h - s->y[i] / ymax * h, s->y[i]);
	fputs("</g>\n", f);
}

static void line_chart(FILE *f, const struct svg_line_chart *c, int y0)
{
	int left = ML, top = y0 + MT, w = W - ML - MR, h = H - MT - MB;
	double step, ymax = nice_max(series_max(c), &step);
	double dx = c->npoints > 1 ? (double)w / (c->npoints - 1) : 0;

	text(f, W / 2.0, y0 + 24, "middle", " font-weight=\"bold\"", c->title);
	value_axis_y(f, top, h, left, w, ymax, c->ylabel);
	fprintf(f, "<g class=\"axis x\">\n<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n",
		left, top + h, left + w, top + h);
	for (int i = 0; i < c->npoints; i++)
		text(f, left + i * dx, top + h + 18, "middle", "", c->xticks[i]);
	text(f, left + w / 2.0, top + h + 42, "middle", "", c->xlabel);
	fputs("</g>\n", f);
	for (int s = 0; s < c->nseries; s++) {
		const char *col = colours[s % NCOLOURS];

		line_series(f, &c->series[s], col, c->npoints, left, top, w, h, ymax);
		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"4\" fill=\"%s\"/>\n",
			left + w + 20, top + 10 + 20 * s, col);
		text(f, left + w + 40, top + 16 + 20 * s, "start", "", c->series[s].name);
	}
}

static int finish(FILE *f)
{
	int err;

	fputs("</svg>\n", f);
	err = ferror(f);
	if (fclose(f) != 0 || err)
		return errno ? -errno : -EIO;
	return 0;
}

static void header(FILE *f, int w, int h)
{
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", w, h, w, h);
}

int svg_write_lines(const char *path, const struct svg_line_chart *charts, int n)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -errno;
	header(f, W, H * n);
	for (int i = 0; i < n; i++)
		line_chart(f, &charts[i], i * H);
	return finish(f);
}

static double bars_max(const struct svg_bar_chart *c)
{
	double m = 0;

	for (int i = 0; i < c->nbars; i++)
		if (!c->bars[i].failed && c->bars[i].hi > m)
			m = c->bars[i].hi;
	return m;
}

/* Horizontal bars: command lines are long, so they get a row each. */
int svg_write_bars(const char *path, const struct svg_bar_chart *c)
{
	int left = 300, top = MT, row = 36, w = W - left - 40;
	int h = row * (c->nbars ? c->nbars : 1);
	double step, xmax = nice_max(bars_max(c), &step);
	FILE *f = fopen(path, "w");
	char buf[48];

	if (!f)
		return -errno;
	header(f, W, top + h + MB);
	text(f, W / 2.0, 24, "middle", " font-weight=\"bold\"", c->title);
	fprintf(f, "<g class=\"axis x\">\n<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n",
		left, top + h, left + w, top + h);
	for (double v = 0; v <= xmax * 1.0001; v += step) {
		double px = left + v / xmax * w;

		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>\n",
			px, top, px, top + h);
		snprintf(buf, sizeof(buf), "%g", v);
		text(f, px, top + h + 16, "middle", "", buf);
	}
	text(f, left + w / 2.0, top + h + 40, "middle", "", c->xlabel);
	fprintf(f, "</g>\n<g class=\"axis y\">\n<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n",
		left, top, left, top + h);
	for (int i = 0; i < c->nbars; i++)
		text(f, left - 8, top + i * row + row / 2.0 + 4, "end", "", c->bars[i].label);
	fputs("</g>\n", f);
	for (int i = 0; i < c->nbars; i++) {
		const struct svg_bar *b = &c->bars[i];
		double y = top + i * row + 6;

		fprintf(f, "<g class=\"series\" data-name=\"");
		put_text(f, b->label);
		fputs("\">\n", f);
		if (b->failed) {
			text(f, left + 8, y + 16, "start", " fill=\"#d62728\"", "FAILED");
		} else {
			fprintf(f, "<rect x=\"%d\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>\n",
				left, y, b->value / xmax * w, row - 12, colours[i % NCOLOURS]);
			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n",
				left + b->lo / xmax * w, y + (row - 12) / 2.0,
				left + b->hi / xmax * w, y + (row - 12) / 2.0);
			/* The label goes right of the whisker's end, where no
			 * line crosses it: at the bar's end it sat on the whisker. */
			snprintf(buf, sizeof(buf), "%.3g", b->value);
			text(f, left + fmax(b->value, b->hi) / xmax * w + 6, y + 16, "start", "", buf);
		}
		fputs("</g>\n", f);
	}
	return finish(f);
}
