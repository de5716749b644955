/*
 * decision_html.c: the decision record as one HTML page (decision.h) that
 * needs nothing else: its style inline, no script, no font, no image but
 * inline SVG, so that it reads the same offline, in a mail, printed (a
 * print style sheet) and years later.  A status is a glyph and a word,
 * never a colour alone.  Every string of the workspace is sanitised, then
 * escaped for HTML text and attribute values; the page's
 * Content-Security-Policy forbids scripts besides.
 */
#include "calops.h"

#include <math.h>

#include "base/buf.h"
#include "base/text.h"
#include "model/decision.h"
#include "model/decision_doc.h"
#include "model/decision_html.h"

#define SVG_W	640
#define SVG_H	220
#define SVG_L	64	/* room for the y axis' labels */
#define SVG_R	16
#define SVG_T	16
#define SVG_B	36	/* room for the x axis' labels */

static const char style[] =
    "body{font:15px/1.45 sans-serif;margin:2em auto;max-width:72em;"
    "padding:0 1em;color:#111;background:#fff}\n"
    "h1{font-size:1.6em;margin:0 0 .3em}h2{font-size:1.25em;"
    "border-bottom:1px solid #999;margin-top:1.6em}h3{font-size:1.05em}\n"
    "table{border-collapse:collapse;margin:.5em 0 1em;width:100%}\n"
    "th,td{border:1px solid #bbb;padding:.2em .45em;text-align:left;"
    "vertical-align:top;overflow-wrap:anywhere}\n"
    "td:first-child,td[class^=s-]{white-space:nowrap}"
    "thead th{background:#eee}code,.hash{font-family:monospace;"
    "font-size:.9em;overflow-wrap:anywhere}\n"
    ".verdict{font-size:1.2em;font-weight:bold;padding:.4em .6em;"
    "border:3px solid}\n"
    ".go{border-color:#1a7f37}.nogo{border-color:#cf222e}\n"
    ".s-pass,.ok{color:#1a7f37}.s-fail,.bad{color:#cf222e}"
    ".s-blocked{color:#8250df}.s-stale{color:#9a6700}"
    ".s-pending{color:#57606a}\n"
    "figure{margin:1em 0;break-inside:avoid}"
    "figcaption{font-size:.9em;color:#333}\n"
    "svg{max-width:100%;height:auto;border:1px solid #ddd}\n"
    "svg text{font:11px sans-serif;fill:#333}\n"
    "svg .line{fill:none;stroke:#0969da;stroke-width:1.5}\n"
    "svg .sla{stroke:#cf222e;stroke-width:1.2;stroke-dasharray:6 4}\n"
    "svg .axis{stroke:#555;stroke-width:1}"
    "svg .grid{stroke:#ddd;stroke-width:1}\n"
    "@media print{body{margin:0;max-width:none;font-size:10pt}"
    "a{color:inherit}section{break-inside:auto}"
    "tr,figure{break-inside:avoid}h2{break-after:avoid}"
    ".verdict{border-width:2px}}\n";

void
decision_html_text(struct buf *b, const char *s)
{
	char *t, *p;

	if (s == NULL)
		return;
	t = text_sanitize_doc(s, strlen(s));
	for (p = t; *p != '\0'; p++) {
		switch (*p) {
		case '<': buf_adds(b, "&lt;"); break;
		case '>': buf_adds(b, "&gt;"); break;
		case '&': buf_adds(b, "&amp;"); break;
		case '"': buf_adds(b, "&quot;"); break;
		case '\'': buf_adds(b, "&#39;"); break;
		default: buf_addc(b, *p); break;
		}
	}
	free(t);
}

/* The top of a graph's y axis: past the highest point and the SLA. */
static double
y_top(const json_t *pts, double sla)
{
	double top = isfinite(sla) ? sla : 0;
	const json_t *p;
	size_t i;

	json_array_foreach(pts, i, p)
		top = fmax(top, json_number_value(json_array_get(p, 1)));
	return top > 0 ? top * 1.1 : 1;
}

/*
 * One graph as inline SVG: the points as a line over the run's span (x in
 * hours), the SLA as a dashed line with its value, axes with three labels
 * each.  Numbers only inside the SVG: the words are in its caption.
 */
static void
svg(struct buf *b, const char *id, const char *title, const json_t *pts,
    double span, double sla, double scale, const char *unit)
{
	double top = y_top(pts, sla) , x, y, pw = SVG_W - SVG_L - SVG_R,
	    ph = SVG_H - SVG_T - SVG_B;
	const json_t *p;
	size_t i;
	int k;

	buf_addf(b, "<svg id=\"%s\" class=\"graph\" xmlns=\"http://www.w3.org/"
	    "2000/svg\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
	    "role=\"img\" aria-labelledby=\"%s-t\"><title id=\"%s-t\">%s"
	    "</title>\n", id, SVG_W, SVG_H, SVG_W, SVG_H, id, id, title);
	for (k = 0; k <= 2; k++) {
		y = SVG_T + ph - ph * k / 2.0;
		buf_addf(b, "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" "
		    "x2=\"%d\" y2=\"%.1f\"/><text x=\"%d\" y=\"%.1f\" "
		    "text-anchor=\"end\">%.4g %s</text>\n", SVG_L, y,
		    SVG_W - SVG_R, y, SVG_L - 4, y + 4, top * k / 2.0 / scale,
		    unit);
		x = SVG_L + pw * k / 2.0;
		buf_addf(b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">"
		    "%.3g h</text>\n", x, SVG_H - SVG_B + 16,
		    span * k / 2.0 / 3600);
	}
	buf_addf(b, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" "
	    "y2=\"%d\"/><line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" "
	    "y2=\"%d\"/>\n", SVG_L, SVG_T, SVG_L, SVG_T + (int)ph, SVG_L,
	    SVG_T + (int)ph, SVG_W - SVG_R, SVG_T + (int)ph);
	buf_adds(b, "<polyline class=\"line\" points=\"");
	json_array_foreach(pts, i, p) {
		x = SVG_L + pw * json_number_value(json_array_get(p, 0)) /
		    (span > 0 ? span : 1);
		y = SVG_T + ph - ph * json_number_value(json_array_get(p, 1)) /
		    top;
		buf_addf(b, "%s%.1f,%.1f", i > 0 ? " " : "", x, y);
	}
	buf_adds(b, "\"/>\n");
	if (isfinite(sla)) {
		y = SVG_T + ph - ph * sla / top;
		buf_addf(b, "<line class=\"sla\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" "
		    "y2=\"%.1f\"/><text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">"
		    "SLA %.4g %s</text>\n", SVG_L, y, SVG_W - SVG_R, y,
		    SVG_W - SVG_R - 4, y - 4, sla / scale, unit);
	}
	buf_adds(b, "</svg>\n");
}

static void
html_raw(struct buf *b, const char *s)
{
	buf_adds(b, s);
}

static void
html_code(struct buf *b, const char *s)
{
	buf_adds(b, "<code>");
	decision_html_text(b, s);
	buf_adds(b, "</code>");
}

static void
html_heading(struct buf *b, int level, const char *id, const char *text)
{
	buf_addf(b, "<h%d id=\"h-%s\">%s</h%d>\n", level, id, text, level);
}

static void
html_para(struct buf *b, const char *id, const char *cls, bool begin)
{
	if (!begin) {
		buf_adds(b, "</p>\n");
		return;
	}
	buf_adds(b, "<p");
	if (id != NULL)
		buf_addf(b, " id=\"%s\"", id);
	if (cls != NULL)
		buf_addf(b, " class=\"%s\"", cls);
	buf_adds(b, ">");
}

static void
html_table(struct buf *b, const char *id, const char *const *cols,
    size_t ncols, bool begin)
{
	size_t i;

	if (!begin) {
		buf_adds(b, "</tbody></table>\n");
		return;
	}
	buf_addf(b, "<table id=\"t-%s\"><thead><tr>", id);
	for (i = 0; i < ncols; i++)
		buf_addf(b, "<th scope=\"col\">%s</th>", cols[i]);
	buf_adds(b, "</tr></thead><tbody>\n");
}

static void
html_row(struct buf *b, const char *cls, const char *key, bool begin)
{
	if (!begin) {
		buf_adds(b, "</tr>\n");
		return;
	}
	buf_addf(b, "<tr class=\"%s\"", cls);
	if (key != NULL) {
		buf_adds(b, " data-key=\"");
		decision_html_text(b, key);
		buf_adds(b, "\"");
	}
	buf_adds(b, ">");
}

static void
html_cell(struct buf *b, const char *cls, bool begin)
{
	if (!begin)
		buf_adds(b, "</td>");
	else if (cls != NULL)
		buf_addf(b, "<td class=\"%s\">", cls);
	else
		buf_adds(b, "<td>");
}

static void
html_item(struct buf *b, bool list, bool begin)
{
	if (list)
		buf_adds(b, begin ? "<ul>\n" : "</ul>\n");
	else
		buf_adds(b, begin ? "<li>" : "</li>\n");
}

/* One soak graph with its caption, the run named in words. */
static void
html_graph(struct buf *b, const json_t *gr, const char *key, const char *id,
    double sla, double scale, const char *unit, const char *what)
{
	const json_t *pts = json_object_get(gr, key);

	buf_adds(b, "<figure>");
	svg(b, id, what, pts, json_number_value(json_object_get(gr,
	    "span_s")), sla, scale, unit);
	buf_addf(b, "<figcaption>%s of run ", what);
	decision_html_text(b, json_string_value(json_object_get(gr, "run")));
	buf_addf(b, ", %zu windows", json_array_size(pts));
	if (isfinite(sla))
		buf_addf(b, "; dashed: the SLA, %.4g %s", sla / scale, unit);
	buf_adds(b, ".</figcaption></figure>\n");
}

static void
html_document(struct buf *b, const json_t *d, bool begin)
{
	const char *model = json_string_value(json_object_get(d, "model_id"));

	if (!begin) {
		buf_adds(b, "</main>\n</body>\n</html>\n");
		return;
	}
	buf_adds(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	    "<meta charset=\"utf-8\">\n"
	    "<meta http-equiv=\"Content-Security-Policy\" content=\""
	    "default-src 'none'; style-src 'unsafe-inline'\">\n"
	    "<meta name=\"viewport\" content=\"width=device-width, "
	    "initial-scale=1\">\n<meta name=\"generator\" content=\"calops "
	    "report\">\n<title>Release decision: ");
	decision_html_text(b, model);
	buf_addf(b, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<main>\n"
	    "<h1>Release decision: ", style);
	decision_html_text(b, model);
	buf_adds(b, "</h1>\n");
}

static const struct decision_fmt html_fmt = {
	.heading = html_heading,
	.para = html_para,
	.text = decision_html_text,
	.raw = html_raw,
	.code = html_code,
	.table = html_table,
	.row = html_row,
	.cell = html_cell,
	.item = html_item,
	.graph = html_graph,
	.document = html_document,
};

void
decision_html(struct buf *b, const json_t *d)
{
	decision_doc_write(&html_fmt, b, d);
}
