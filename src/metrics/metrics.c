/* metrics.c: the live metric store: series fed into history rings,
 * sliding-window sketches and leak samples (metrics.h); reading them and
 * merged views are metricsview.c. */
#include "calops.h"

#include <math.h>

#include "metrics/metrics.h"
#include "metrics/metrics_int.h"

const struct mlevel_def metrics_levels[MLEVEL_COUNT] = {
	{ 1, 120 },
	{ 10, 384 },
	{ 300, 300 },
};

const struct mwindow_def metrics_windows[NLAT_WIN] = {
	{ 60, 10 },
	{ 600, 100 },
	{ 3600, 600 },
};

static const char *const latency_names[] = { "ttft_ms", "tpot_ms" };
static const char *const memory_names[] = { "rss_bytes", "device_mem_bytes" };

static bool
name_in(const char *name, const char *const *names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	return false;
}

/* The names the console knows (protocol.md §3), and their alerts' p99
 * series: the last quarter of a cap is theirs (known_share()). */
static bool
known_name(const char *name)
{
	static const char *const known[] = { "ttft_ms", "tpot_ms",
	    "request_ok", "rss_bytes", "device_mem_bytes", "kv_used",
	    "kv_capacity", "pool_used", "pool_capacity", "temp_c", "power_w",
	    "errors", "resets", "ttft_ms_p99", "tpot_ms_p99" };	/* alerts.h */

	return name_in(name, known, nitems(known));
}

static bool
metrics_is_latency(const char *name)
{
	return name_in(name, latency_names, nitems(latency_names));
}

static bool
metrics_is_memory(const char *name)
{
	return name_in(name, memory_names, nitems(memory_names));
}

unsigned
metrics_level_res(enum mlevel l)
{
	return metrics_levels[l].res;
}

unsigned
metrics_level_cells(enum mlevel l)
{
	return metrics_levels[l].ncells;
}

unsigned
metrics_window_width(enum mwin w)
{
	return w == MWIN_RUN ? 0 : metrics_windows[w].width;
}

/* ---- History rings ---- */

/* Move a ring's newest cell to key k, clearing the cells it passes. */
static void
ring_move(struct ring *r, unsigned n, int64_t k)
{
	uint32_t i;
	int64_t j;

	if (r->cur < 0 || k - r->cur >= n) {
		for (i = 0; i < n; i++)
			r->cells[i].count = 0;
		r->at = (uint32_t)(k % n);
	} else
		for (j = r->cur + 1; j <= k; j++) {
			r->at = r->at + 1 == n ? 0 : r->at + 1;
			r->cells[r->at].count = 0;
		}
	r->cur = k;
}

static void
ring_put(struct ring *r, unsigned res, unsigned n, double ts, double v)
{
	int64_t k = (int64_t)(ts / res);
	struct mcell *c;

	if (k > r->cur)
		ring_move(r, n, k);
	else if (k <= r->cur - n)
		return;		/* older than the ring */
	c = &r->cells[ring_index(r->cur, r->at, n, k)];
	if (c->count == 0) {
		c->sum = 0;
		c->min = c->max = v;
	}
	c->count++;
	c->sum += v;
	c->min = MIN(c->min, v);
	c->max = MAX(c->max, v);
	c->last = v;
}

/* ---- Sliding windows ---- */

/* After a slot left: min, max and sum again from the slots themselves. */
static void
window_bounds(struct window *w)
{
	struct sketch *sum = &w->sum;
	size_t i;

	if (sum->count == 0) {
		sketch_reset(sum);	/* forget the collapse floor too */
		return;
	}
	sum->min = INFINITY;
	sum->max = -INFINITY;
	sum->sum = 0;
	for (i = 0; i < WIN_SLOTS; i++) {
		sum->min = fmin(sum->min, w->slot[i].min);
		sum->max = fmax(sum->max, w->slot[i].max);
		sum->sum += w->slot[i].sum;
	}
}

/* Make slot key k current: the slots it passes leave the window. */
static void
window_move(struct window *w, int64_t k)
{
	struct sketch *old;
	bool left = false;
	int64_t j;
	size_t i;

	if (w->cur < 0 || k - w->cur >= WIN_SLOTS) {
		for (i = 0; i < WIN_SLOTS; i++)
			sketch_reset(&w->slot[i]);
		sketch_reset(&w->sum);
		w->cur = k;
		w->at = (uint32_t)(k % WIN_SLOTS);
		return;
	}
	for (j = w->cur + 1; j <= k; j++) {
		w->at = w->at + 1 == WIN_SLOTS ? 0 : w->at + 1;
		old = &w->slot[w->at];
		if (old->count == 0)
			continue;
		if (sketch_subtract(&w->sum, old) != 0)
			fatal("metrics: a window lost track of its slots");
		sketch_reset(old);
		left = true;
	}
	w->cur = k;
	if (left)
		window_bounds(w);
}

static void
window_put(struct window *w, unsigned slot, double ts,
    const struct sketch_value *sv)
{
	int64_t k = (int64_t)(ts / slot);

	if (k > w->cur)
		window_move(w, k);
	else if (k <= w->cur - WIN_SLOTS)
		return;		/* older than the window */
	sketch_add_prepared(&w->slot[ring_index(w->cur, w->at, WIN_SLOTS, k)],
	    sv, 1);
	sketch_add_prepared(&w->sum, sv, 1);
}

static struct latency *
latency_new(void)
{
	struct latency *lat = xcalloc(1, sizeof *lat);
	size_t i, j;

	for (i = 0; i < NLAT_WIN; i++) {
		lat->w[i].cur = -1;
		/* A window sum holds thousands a bucket: 32-bit from the
		 * start. */
		sketch_init_width(&lat->w[i].sum, 4);
		for (j = 0; j < WIN_SLOTS; j++)
			sketch_init(&lat->w[i].slot[j]);
	}
	sketch_init_width(&lat->run, 4);
	return lat;
}

static void
latency_free(struct latency *lat)
{
	size_t i, j;

	if (lat == NULL)
		return;
	for (i = 0; i < NLAT_WIN; i++) {
		sketch_release(&lat->w[i].sum);
		for (j = 0; j < WIN_SLOTS; j++)
			sketch_release(&lat->w[i].slot[j]);
	}
	sketch_release(&lat->run);
	free(lat);
}

static size_t
latency_memory(const struct latency *lat)
{
	size_t bytes = sizeof *lat + sketch_memory(&lat->run), i, j;

	for (i = 0; i < NLAT_WIN; i++) {
		bytes += sketch_memory(&lat->w[i].sum);
		for (j = 0; j < WIN_SLOTS; j++)
			bytes += sketch_memory(&lat->w[i].slot[j]);
	}
	return bytes;
}

/* ---- Leak-rule samples ---- */

static void
leak_put(struct leak *l, double ts, double v)
{
	uint32_t i;

	l->fresh = false;
	if (l->seen % l->stride == 0 && l->n == MLEAK_SAMPLES) {
		/* Full: keep every other sample, and every 2nd from now on. */
		for (i = 0; i < MLEAK_SAMPLES / 2; i++) {
			l->ts[i] = l->ts[2 * i];
			l->v[i] = l->v[2 * i];
		}
		l->n = MLEAK_SAMPLES / 2;
		l->stride *= 2;
	}
	if (l->seen++ % l->stride == 0) {
		l->ts[l->n] = ts;
		l->v[l->n++] = v;
		l->has_tail = false;
	} else {
		l->tail_ts = ts;
		l->tail_v = v;
		l->has_tail = true;
	}
}

static void
leak_eval(struct leak *l)
{
	struct series s;

	s.n = s.alloc = l->n + (l->has_tail ? 1 : 0);
	s.ts = xreallocarray(NULL, s.alloc, sizeof *s.ts);
	s.v = xreallocarray(NULL, s.alloc, sizeof *s.v);
	memcpy(s.ts, l->ts, l->n * sizeof *s.ts);
	memcpy(s.v, l->v, l->n * sizeof *s.v);
	if (l->has_tail) {
		s.ts[l->n] = l->tail_ts;
		s.v[l->n] = l->tail_v;
	}
	soakstats_leak_rule(&s, &l->verdict);	/* sorts s.v: hence the copy */
	soakstats_series_release(&s);
	l->fresh = true;
}

void
metrics_series_leak(struct mseries *s, struct leak_verdict *out)
{
	if (s->leak == NULL) {
		memset(out, 0, sizeof *out);
		return;
	}
	if (!s->leak->fresh)
		leak_eval(s->leak);
	*out = s->leak->verdict;
}

/* ---- Series and the store ---- */

/* FNV-1a over host, a separator and chip, then name: the host part once. */
static uint64_t
hash_host(const char *host, int chip)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ (uint64_t)(uint32_t)chip;
	const unsigned char *p;

	for (p = (const unsigned char *)host; *p != '\0'; p++)
		h = (h ^ *p) * 0x100000001b3ULL;
	return (h ^ 0xff) * 0x100000001b3ULL;
}

static uint64_t
hash_name(uint64_t h, const char *name)
{
	const unsigned char *p;

	for (p = (const unsigned char *)name; *p != '\0'; p++)
		h = (h ^ *p) * 0x100000001b3ULL;
	return h ^ h >> 29;
}

static uint64_t
series_hash(const char *host, int chip, const char *name)
{
	return hash_name(hash_host(host, chip), name);
}

static struct mseries *
series_new(const char *host, int chip, const char *name, uint64_t hash)
{
	size_t hlen = strlen(host), nlen = strlen(name), i, at = 0;
	struct mseries *s = xcalloc(1, sizeof *s + hlen + nlen + 2);

	memcpy(s->names, host, hlen + 1);
	memcpy(s->names + hlen + 1, name, nlen + 1);
	s->host = s->names;
	s->name = s->names + hlen + 1;
	s->chip = chip;
	s->hash = hash;
	s->min = INFINITY;
	s->max = -INFINITY;
	s->last = s->last_ts = NAN;
	s->cells = xcalloc(NCELLS_ALL, sizeof *s->cells);
	for (i = 0; i < MLEVEL_COUNT; i++) {
		s->level[i].cur = -1;
		s->level[i].cells = s->cells + at;
		at += metrics_levels[i].ncells;
	}
	if (metrics_is_latency(name))
		s->lat = latency_new();
	if (metrics_is_memory(name)) {
		s->leak = xcalloc(1, sizeof *s->leak);
		s->leak->stride = 1;
	}
	return s;
}

static void
series_free(struct mseries *s)
{
	latency_free(s->lat);
	free(s->leak);
	free(s->cells);
	free(s);
}

static size_t
series_memory(const struct mseries *s)
{
	size_t bytes = sizeof *s + strlen(s->host) + strlen(s->name) + 2;

	bytes += NCELLS_ALL * sizeof *s->cells;
	if (s->lat != NULL)
		bytes += latency_memory(s->lat);
	if (s->leak != NULL)
		bytes += sizeof *s->leak;
	return bytes;
}

static void
series_put(struct mseries *s, double ts, double v)
{
	struct sketch_value sv;
	size_t i;

	s->count++;
	s->sum += v;
	s->min = MIN(s->min, v);
	s->max = MAX(s->max, v);
	s->last = v;
	if (isnan(s->last_ts) || ts > s->last_ts)
		s->last_ts = ts;
	for (i = 0; i < MLEVEL_COUNT; i++)
		ring_put(&s->level[i], metrics_levels[i].res,
		    metrics_levels[i].ncells, ts, v);
	if (s->lat != NULL && sketch_prepare(v, &sv) == 0) {
		for (i = 0; i < NLAT_WIN; i++)
			window_put(
			    &s->lat->w[i], metrics_windows[i].slot, ts, &sv);
		sketch_add_prepared(&s->lat->run, &sv, 1);
	}
	if (s->leak != NULL)
		leak_put(s->leak, ts, v);
}

struct metrics *
metrics_new(size_t max_series)
{
	struct metrics *m = xcalloc(1, sizeof *m);

	m->max = max_series == 0 ? METRICS_JOB_SERIES : max_series;
	m->tsize = 64;
	m->table = xcalloc(m->tsize, sizeof *m->table);
	return m;
}

void
metrics_free(struct metrics *m)
{
	size_t i;

	if (m == NULL)
		return;
	for (i = 0; i < m->n; i++)
		series_free(m->list[i]);
	if (m->quota != NULL)
		m->quota->used -= m->n;
	free(m->refused);
	free(m->list);
	free(m->table);
	free(m);
}

void
metrics_set_quota(struct metrics *m, struct mquota *q)
{
	if (m->quota != NULL)
		m->quota->used -= m->n;
	m->quota = q;
	if (q != NULL)
		q->used += m->n;
}

void
metrics_dropped(const struct metrics *m, struct mdropped *out)
{
	*out = m->dropped;
}

/* The table slot of a series, or the empty slot where it would go. */
static struct mseries **
lookup(const struct metrics *m, const char *host, int chip, const char *name,
    uint64_t hash)
{
	size_t i = (size_t)hash & (m->tsize - 1);
	struct mseries *s;

	while ((s = m->table[i]) != NULL) {
		if (s->hash == hash && s->chip == chip &&
		    strcmp(s->name, name) == 0 && strcmp(s->host, host) == 0)
			break;
		i = (i + 1) & (m->tsize - 1);
	}
	return &m->table[i];
}

static void
grow_table(struct metrics *m)
{
	struct mseries **old = m->table;
	size_t i, n = m->tsize;

	m->tsize *= 2;
	m->table = xcalloc(m->tsize, sizeof *m->table);
	for (i = 0; i < n; i++)
		if (old[i] != NULL)
			*lookup(m, old[i]->host, old[i]->chip, old[i]->name,
			    old[i]->hash) = old[i];
	free(old);
}

/*
 * A sample of a new series that a cap refused: counted, and its series
 * counted apart while the set of them has room.  The set is an open table
 * of twice METRICS_DROPPED_SERIES hashes, so a probe stays short when full.
 */
static void
refuse(struct metrics *m, uint64_t hash, size_t cap, bool quota)
{
	struct mdropped *d = &m->dropped;
	size_t mask = 2 * METRICS_DROPPED_SERIES - 1, i;

	if (d->samples++ == 0) {
		d->cap = cap;
		d->quota = quota;
		m->refused = xcalloc(mask + 1, sizeof *m->refused);
	}
	hash |= 1;		/* never 0, the empty slot */
	for (i = hash & mask; m->refused[i] != 0; i = (i + 1) & mask)
		if (m->refused[i] == hash)
			return;
	if (d->series == METRICS_DROPPED_SERIES)
		d->more = true;
	else {
		m->refused[i] = hash;
		d->series++;
	}
}

/* What a cap keeps for the names the console knows: a quarter. */
static size_t
known_share(size_t cap)
{
	return cap / 4;
}

/* The series, made if new; NULL, counted, when a cap refuses it (that cap
 * in *refused_by, and whether it is the quota's in *by_quota). */
static struct mseries *
series_get(struct metrics *m, const char *host, int chip, const char *name,
    uint64_t hash, size_t *refused_by, bool *by_quota)
{
	struct mseries **slot = lookup(m, host, chip, name, hash);
	bool known = known_name(name);

	if (*slot != NULL)
		return *slot;
	if (m->n + (known ? 0 : known_share(m->max)) >= m->max) {
		refuse(m, hash, m->max, false);
		*refused_by = m->max;
		return NULL;
	}
	if (m->quota != NULL && m->quota->used + (known ? 0 :
	    known_share(m->quota->max)) >= m->quota->max) {
		refuse(m, hash, m->quota->max, true);
		*refused_by = m->quota->max;
		*by_quota = true;
		return NULL;
	}
	if (2 * (m->n + 1) > m->tsize) {
		grow_table(m);
		slot = lookup(m, host, chip, name, hash);
	}
	*slot = series_new(host, chip, name, hash);
	if (m->quota != NULL)
		m->quota->used++;
	if (m->n == m->alloc) {
		m->alloc = m->alloc == 0 ? 64 : m->alloc * 2;
		m->list = xreallocarray(m->list, m->alloc, sizeof *m->list);
	}
	m->list[m->n++] = *slot;
	return *slot;
}

/* What every sample of a (host, chip) shares: checked once an event. */
static int
check_source(const char *host, int chip, double ts, char *err, size_t errlen)
{
	if (!(ts >= 0 && ts <= TS_MAX)) {
		errbuf_set(err, errlen, "sample time %g out of range", ts);
		return -1;
	}
	if (strlen(host) > METRICS_HOST_MAX || chip < MCHIP_NONE ||
	    chip > EVENT_CHIP_MAX) {
		errbuf_set(err, errlen, "'%.64s' chip %d: bad host or chip",
		    host, chip);
		return -1;
	}
	return 0;
}

/* One sample of a checked source; hhash is hash_host(host, chip). */
static int
add_sample(struct metrics *m, const char *host, int chip, uint64_t hhash,
    const char *name, double ts, double v, char *err, size_t errlen)
{
	struct mseries *s;
	size_t cap = 0;
	bool quota = false;

	if (name[0] == '\0' || strnlen(name, EVENT_NAME_MAX + 1) >
	    EVENT_NAME_MAX) {
		errbuf_set(err, errlen, "bad metric name '%.64s'", name);
		return -1;
	}
	if (!isfinite(v)) {
		errbuf_set(err, errlen, "'%s': value is not finite", name);
		return -1;
	}
	if (v < 0 && metrics_is_latency(name)) {
		errbuf_set(err, errlen, "'%s': negative latency %g", name, v);
		return -1;
	}
	s = series_get(m, host, chip, name, hash_name(hhash, name), &cap,
	    &quota);
	if (s == NULL) {
		errbuf_set(err, errlen, "'%s': a new series past the cap of %zu "
		    "series%s%s: not kept", name, cap, quota ? " of all jobs" :
		    "", known_name(name) ? "" : " (a quarter kept for the "
		    "names calops knows)");
		return -1;
	}
	series_put(s, ts, v);
	return 0;
}

int
metrics_add(struct metrics *m, const char *host, int chip, const char *name,
    double ts, double v, char *err, size_t errlen)
{
	if (check_source(host, chip, ts, err, errlen) != 0)
		return -1;
	return add_sample(m, host, chip, hash_host(host, chip), name, ts, v,
	    err, errlen);
}

int
metrics_add_event(struct metrics *m, const char *host, const struct event *ev,
    char *err, size_t errlen)
{
	int chip = ev->has & EVENT_HAS_CHIP ? ev->chip : MCHIP_NONE, rc = 0;
	uint64_t hhash;
	size_t i;

	if (ev->type != EVENT_METRIC || !(ev->has & EVENT_HAS_TS)) {
		errbuf_set(err, errlen, "not a metric event with a ts");
		return -1;
	}
	if (check_source(host, chip, ev->ts, err, errlen) != 0)
		return -1;
	hhash = hash_host(host, chip);
	for (i = 0; i < ev->nvalues; i++)
		if (add_sample(m, host, chip, hhash, ev->values[i].name, ev->ts,
		    ev->values[i].v, rc == 0 ? err : NULL, errlen) != 0)
			rc = -1;
	return rc;
}

void
metrics_tick(struct metrics *m, double now)
{
	struct latency *lat;
	size_t i, j;
	int64_t k;

	if (!(now >= 0 && now <= TS_MAX))
		return;
	for (i = 0; i < m->n; i++) {
		if ((lat = m->list[i]->lat) == NULL)
			continue;
		for (j = 0; j < NLAT_WIN; j++) {
			k = (int64_t)(now / metrics_windows[j].slot);
			if (k > lat->w[j].cur)
				window_move(&lat->w[j], k);
		}
	}
}

struct mseries *
metrics_find(const struct metrics *m, const char *host, int chip,
    const char *name)
{
	return *lookup(m, host, chip, name, series_hash(host, chip, name));
}

size_t
metrics_count(const struct metrics *m)
{
	return m->n;
}

struct mseries *
metrics_series(const struct metrics *m, size_t i)
{
	return i < m->n ? m->list[i] : NULL;
}

size_t
metrics_select(const struct metrics *m, const char *host, int chip,
    const char *name, struct mseries **out, size_t max)
{
	struct mseries *s;
	size_t i, n = 0;

	for (i = 0; i < m->n; i++) {
		s = m->list[i];
		if (strcmp(s->name, name) != 0 ||
		    (host != NULL && strcmp(s->host, host) != 0) ||
		    (chip != MCHIP_ANY && s->chip != chip))
			continue;
		if (n < max)
			out[n] = s;
		n++;
	}
	return n;
}

size_t
metrics_memory(const struct metrics *m)
{
	size_t bytes = sizeof *m, i;

	bytes += m->tsize * sizeof *m->table + m->alloc * sizeof *m->list;
	if (m->refused != NULL)
		bytes += 2 * METRICS_DROPPED_SERIES * sizeof *m->refused;
	for (i = 0; i < m->n; i++)
		bytes += series_memory(m->list[i]);
	return bytes;
}
