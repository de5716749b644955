/* labadopt.c: a soak this console did not start, followed (labadopt.h). */
#include "calops.h"

#include <math.h>

#include "base/buf.h"
#include "job/jobevent.h"
#include "lab/labadopt.h"
#include "lab/labmodel_int.h"
#include "lab/labstream.h"

#define ADOPT_CHIPS_MAX	256

/* argv[i] of a record, or NULL. */
static const char *
arg_at(json_t *argv, size_t i)
{
	return json_string_value(json_array_get(argv, i));
}

/* The word after option opt in argv, or NULL. */
static const char *
option(json_t *argv, const char *opt)
{
	size_t i;

	for (i = 0; i + 1 < json_array_size(argv); i++)
		if (arg_at(argv, i) != NULL &&
		    strcmp(arg_at(argv, i), opt) == 0)
			return arg_at(argv, i + 1);
	return NULL;
}

bool
labadopt_is_soak(json_t *record)
{
	json_t *argv = json_object_get(record, "argv");
	size_t i;

	for (i = 0; i < json_array_size(argv); i++)
		if (arg_at(argv, i) != NULL &&
		    strcmp(arg_at(argv, i), "stress") == 0)
			return option(argv, "--chips") != NULL;
	return false;
}

/* "0-3" or "0,2,5-7" into chips, how many (0 when it is not a list). */
static size_t
chips_of(const char *s, int *chips, size_t max)
{
	long a, b, c;
	size_t n = 0;
	char *end;

	while (s != NULL && *s != '\0') {
		a = strtol(s, &end, 10);
		if (end == s || a < 0 || a > INT_MAX)
			return 0;
		b = a;
		if (*end == '-') {
			s = end + 1;
			b = strtol(s, &end, 10);
			if (end == s || b < a || b > INT_MAX)
				return 0;
		}
		for (c = a; c <= b && n < max; c++)
			chips[n++] = (int)c;
		if (*end != ',' && *end != '\0')
			return 0;
		s = *end == ',' ? end + 1 : end;
	}
	return n;
}

/* "24h", "90m", "3600s" or "3600" in seconds, or 0. */
static double
seconds_of(const char *s)
{
	char unit = 's';
	double d;

	if (s == NULL || sscanf(s, "%lf%c", &d, &unit) < 1 || !(d > 0))
		return 0;
	return unit == 'h' ? d * 3600 : unit == 'm' ? d * 60 : unit == 's' ?
	    d : 0;
}

/* The job as the model keeps one it started: kind, chips, target, label,
 * command and workspace from the record's argv. */
static struct ljob_int *
job_of(struct labmodel *lm, const struct lhost *h, json_t *record)
{
	json_t *argv = json_object_get(record, "argv");
	struct ljob_int *j = xcalloc(1, sizeof *j);
	const char *calbin = option(argv, "--calbin"), *cut, *actor;
	int chips[ADOPT_CHIPS_MAX];
	struct buf b = BUF_INIT;
	size_t i;

	j->pub.host = xstrdup(h->h->name);
	j->pub.id = xstrdup(json_string_value(json_object_get(record, "id")));
	j->pub.kind = LJOB_SOAK;
	j->pub.gate = 9;
	j->pub.chip = -1;
	j->pub.nchips = chips_of(option(argv, "--chips"), chips,
	    nitems(chips));
	j->pub.chips = xcalloc(j->pub.nchips + 1, sizeof *j->pub.chips);
	memcpy(j->pub.chips, chips, j->pub.nchips * sizeof *chips);
	j->pub.target_s = seconds_of(option(argv, "--duration"));
	if (calbin != NULL && (cut = strstr(calbin, "/05-calbin/package")) !=
	    NULL && cut[strlen("/05-calbin/package")] == '\0') {
		char *ws = xstrndup(calbin, (size_t)(cut - calbin));

		j->pub.workspace = labmodel_ws_key(h, ws);
		free(ws);
	}
	for (i = 0; i < json_array_size(argv); i++)
		buf_addf(&b, "%s%s", i > 0 ? " " : "", arg_at(argv, i) != NULL ?
		    arg_at(argv, i) : "");
	buf_addc(&b, '\0');
	j->pub.command = buf_detach(&b, NULL);
	/* Who started it, when its host's record says (an older calops's
	 * does not): the label carries it, into the record and the screens. */
	actor = json_string_value(json_object_get(record, "actor"));
	j->pub.label = xasprintf("soak %s · chips %s%s%s", option(argv,
	    "--duration") != NULL ? option(argv, "--duration") : "?",
	    option(argv, "--chips"), actor != NULL ? " · by " : "",
	    actor != NULL ? actor : "");
	/* The host's clock, as its record says (this one's when it does
	 * not: the job's record needs a number). */
	j->pub.started = json_is_number(json_object_get(record, "started")) ?
	    json_number_value(json_object_get(record, "started")) :
	    jobevent_now();
	j->sla[0] = j->sla[1] = j->sla[2] = NAN;
	/* Known to be there, not yet heard: its host replays it first. */
	j->pub.state = LJ_CATCHING_UP;
	(void)lm;
	return j;
}

const struct ljob *
labadopt_soak(struct labmodel *lm, const char *host, json_t *record,
    char *err, size_t errlen)
{
	const char *id = json_string_value(json_object_get(record, "id"));
	const struct ljob *known;
	struct lhost *h;
	struct ljob_int *j;

	if (id == NULL || !labadopt_is_soak(record)) {
		errbuf_set(err, errlen, "not a soak's job");
		return NULL;
	}
	if ((known = labmodel_find(lm, host, id)) != NULL)
		return known;
	if (labmodel_watching(lm)) {
		errbuf_set(err, errlen, "%s", labmodel_start_refused(lm));
		return NULL;
	}
	if ((h = labmodel_host_at(lm, host)) == NULL) {
		errbuf_set(err, errlen, "no host '%s' in the lab file", host);
		return NULL;
	}
	if (labmodel_host_dir(lm, host, err, errlen) != 0)
		return NULL;
	j = job_of(lm, h, record);
	labmodel_job_setup(lm, j, true);
	/* The record first, as for a job started here: a console started
	 * again replays what was caught up and resumes the rest. */
	if (labmodel_job_record(j, err, errlen) != 0) {
		labstream_job_free(j);
		return NULL;
	}
	j->unfinished = true;
	labmodel_job_insert(lm, j);
	labstream_follow(j);
	labmodel_changed(lm);
	return &j->pub;
}
