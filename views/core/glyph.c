/* glyph.c: the marks of states on every screen (glyph.h). */
#include "calops.h"

#include "views/core/glyph.h"
#include "views/core/ui.h"

const char *
glyph_status(enum gate_status s)
{
	switch (s) {
	case GS_PASS: return ui_glyph("✔", "+");
	case GS_FAIL: return ui_glyph("✘", "x");
	case GS_BLOCKED: return ui_glyph("⊘", "#");
	case GS_STALE: return ui_glyph("≈", "~");
	case GS_RUNNING: return ui_glyph("▶", ">");
	default: return ui_glyph("·", ".");
	}
}

const char *
glyph_job(const char *s, enum role *r)
{
	static const struct {
		const char *name, *utf8, *ascii;
		enum role role;
	} t[] = {
		{ "starting", "…", ".", ROLE_PENDING },
		{ "running", "▶", ">", ROLE_RUNNING },
		/* running, its events stalled on the host (disk full) */
		{ "degraded", "▶", ">", ROLE_ERROR },
		{ "catching up", "⟳", "~", ROLE_PENDING },
		{ "done", "✔", "+", ROLE_PASS },
		{ "failed", "✘", "x", ROLE_FAIL },
		/* Not ⊘: that is a blocked gate's, and only that. */
		{ "killed", "■", "k", ROLE_BLOCKED },
		{ "lost", "?", "?", ROLE_STALE },
		{ "corrupt", "!", "!", ROLE_ERROR },
		{ "broken", "!", "!", ROLE_ERROR },
	};
	size_t i;

	for (i = 0; i < nitems(t); i++)
		if (strcmp(s, t[i].name) == 0) {
			*r = t[i].role;
			return ui_glyph(t[i].utf8, t[i].ascii);
		}
	*r = ROLE_DIM;
	return "?";
}

int
glyph_status_role(enum gate_status s)
{
	static const int roles[] = { ROLE_PENDING, ROLE_FAIL, ROLE_BLOCKED,
	    ROLE_STALE, ROLE_PASS, ROLE_RUNNING };

	return roles[s];
}

const char *
glyph_verdict(const char *verdict, enum role *r)
{
	if (verdict != NULL && strcmp(verdict, "held") == 0) {
		*r = ROLE_PASS;
		return ui_glyph("✔", "+");
	}
	if (verdict != NULL && strcmp(verdict, "failed") == 0) {
		*r = ROLE_FAIL;
		return ui_glyph("✘", "x");
	}
	*r = ROLE_DIM;
	return ui_glyph("○", "?");
}

int
glyph_severity_role(enum severity s)
{
	static const int roles[] = { ROLE_ERROR, ROLE_BLOCKED, ROLE_STALE,
	    ROLE_WARN, ROLE_INFO };

	return roles[s];
}
