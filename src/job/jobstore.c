/* jobstore.c: job ids, the jobs folder and job.json (jobstore.h). */
#include "calops.h"

#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>

#include <dirent.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/statedir.h"
#include "base/text.h"
#include "job/jobstore.h"

#define RECORD_MAX	(1u << 20)	/* a bigger job.json is corrupt */
#define RECORD_RESERVE	"job.json.last"	/* kept for the last record */

static const char *const state_names[] = {
	[JOB_RUNNING] = "running",
	[JOB_DONE] = "done",
	[JOB_FAILED] = "failed",
	[JOB_KILLED] = "killed",
	[JOB_LOST] = "lost",
	[JOB_CORRUPT] = "corrupt",
};

const char *
jobstore_state_name(enum job_state s)
{
	return (size_t)s < nitems(state_names) ? state_names[s] : "corrupt";
}

void
jobstore_signal_name(int sig, char *buf, size_t len)
{
	const char *abbrev = sigabbrev_np(sig);

	if (abbrev != NULL)
		snprintf(buf, len, "SIG%s", abbrev);
	else
		snprintf(buf, len, "signal %d", sig);
}

bool
jobstore_id_valid(const char *id)
{
	size_t i;

	if (id == NULL || id[0] == '\0' || id[0] == '.')
		return false;
	for (i = 0; id[i] != '\0'; i++) {
		if (i == JOB_ID_MAX)
			return false;
		if (strchr("abcdefghijklmnopqrstuvwxyz"
		    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", id[i]) == NULL)
			return false;
	}
	return true;
}

void
jobstore_id_generate(char *buf, size_t len)
{
	unsigned char r[3];
	time_t t = time(NULL);
	struct tm tm;
	char stamp[32];

	if (getrandom(r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
		/* No entropy yet (early boot): the pid and clock will do. */
		uint32_t x = (uint32_t)getpid() * 2654435761u ^
		    (uint32_t)clock();

		r[0] = (unsigned char)x;
		r[1] = (unsigned char)(x >> 8);
		r[2] = (unsigned char)(x >> 16);
	}
	gmtime_r(&t, &tm);
	strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
	snprintf(buf, len, "%s-%02x%02x%02x", stamp, r[0], r[1], r[2]);
}

char *
jobstore_root(const char *opt, bool create, char *err, size_t errlen)
{
	char *dir, *path = NULL;
	int fd;

	if (opt == NULL || opt[0] == '\0')
		opt = getenv("CALOPS_JOBS_DIR");
	if (opt != NULL && opt[0] != '\0') {
		dir = xstrdup(opt);
		fd = statedir_open_top(opt, "the jobs folder", create, &path,
		    err, errlen);
	} else {
		if ((dir = fileio_state_path("jobs", err, errlen)) == NULL)
			return NULL;
		fd = statedir_open("jobs", "the jobs folder", create, &path,
		    err, errlen);
	}
	/* Not made yet: no job to list, tail or kill there. */
	if (fd == -1 && errno == ENOENT && !create)
		return dir;
	free(dir);
	if (fd == -1)
		return NULL;
	close(fd);
	return path;
}

void
jobstore_record_release(struct job_record *r)
{
	size_t i;

	if (r->argv != NULL)
		for (i = 0; r->argv[i] != NULL; i++)
			free(r->argv[i]);
	free(r->argv);
	free(r->id);
	free(r->cwd);
	free(r->actor);
	memset(r, 0, sizeof *r);
}

json_t *
jobstore_record_json(const struct job_record *r)
{
	json_t *o = json_object(), *argv = json_array();
	size_t i;

	for (i = 0; r->argv != NULL && r->argv[i] != NULL; i++)
		json_array_append_new(argv, text_json(r->argv[i]));
	json_object_set_new(o, "id", text_json(r->id));
	json_object_set_new(o, "argv", argv);
	json_object_set_new(o, "cwd", text_json(r->cwd));
	if (r->actor != NULL)
		json_object_set_new(o, "actor", text_json(r->actor));
	json_object_set_new(o, "started", json_real(r->started));
	json_object_set_new(o, "pid", r->pid > 0 ? json_integer(r->pid) :
	    json_null());
	json_object_set_new(o, "supervisor_pid", json_integer(r->supervisor_pid));
	json_object_set_new(
	    o, "state", json_string(jobstore_state_name(r->state)));
	json_object_set_new(o, "exit_code", r->exit_code >= 0 ?
	    json_integer(r->exit_code) : json_null());
	json_object_set_new(o, "signal", r->signal > 0 ?
	    json_integer(r->signal) : json_null());
	json_object_set_new(o, "ended", r->ended > 0 ? json_real(r->ended) :
	    json_null());
	json_object_set_new(o, "lost_lines", json_integer((json_int_t)r->lost));
	json_object_set_new(o, "pid_start", r->pid_start[0] != '\0' ?
	    json_string(r->pid_start) : json_null());
	json_object_set_new(o, "supervisor_start", r->supervisor_start[0] !=
	    '\0' ? json_string(r->supervisor_start) : json_null());
	return o;
}

/* An integer member, or null (none) when null_ok; -1 when neither. */
static int
get_int(json_t *o, const char *key, bool null_ok, long lo, long *v)
{
	json_t *m = json_object_get(o, key);

	if (null_ok && json_is_null(m)) {
		*v = lo - 1;
		return 0;
	}
	if (!json_is_integer(m) || json_integer_value(m) < lo ||
	    json_integer_value(m) > INT_MAX)
		return -1;
	*v = (long)json_integer_value(m);
	return 0;
}

static int
get_argv(struct job_record *r, json_t *a)
{
	size_t i, n = json_array_size(a);

	if (!json_is_array(a) || n == 0)
		return -1;
	for (i = 0; i < n; i++)
		if (!json_is_string(json_array_get(a, i)))
			return -1;
	r->argv = xcalloc(n + 1, sizeof *r->argv);
	for (i = 0; i < n; i++)
		r->argv[i] = xstrdup(json_string_value(json_array_get(a, i)));
	return 0;
}

static int
get_state(json_t *o, enum job_state *s)
{
	const char *name = json_string_value(json_object_get(o, "state"));
	int i;

	for (i = JOB_RUNNING; name != NULL && i <= JOB_KILLED; i++) {
		if (strcmp(name, state_names[i]) == 0) {
			*s = (enum job_state)i;
			return 0;
		}
	}
	return -1;
}

/* A process's start (jobstore_pid_start()) into buf[64], "" when null or
 * missing; -1 when it is something else. */
static int
get_start(json_t *o, const char *key, char *buf)
{
	json_t *m = json_object_get(o, key);

	if (m == NULL || json_is_null(m))
		return 0;
	if (!json_is_string(m) || json_string_length(m) >= 64)
		return -1;
	snprintf(buf, 64, "%s", json_string_value(m));
	return 0;
}

/* The members of a parsed record into r; the name of the first bad one. */
static const char *
record_members(struct job_record *r, json_t *o)
{
	json_t *ended = json_object_get(o, "ended"), *m;
	long v;

	if (!json_is_string(json_object_get(o, "id")) ||
	    !jobstore_id_valid(json_string_value(json_object_get(o, "id"))))
		return "id";
	r->id = xstrdup(json_string_value(json_object_get(o, "id")));
	if (get_argv(r, json_object_get(o, "argv")) != 0)
		return "argv";
	if (!json_is_string(json_object_get(o, "cwd")))
		return "cwd";
	r->cwd = xstrdup(json_string_value(json_object_get(o, "cwd")));
	/* An older supervisor's record has no actor. */
	if ((m = json_object_get(o, "actor")) != NULL) {
		if (!json_is_string(m))
			return "actor";
		r->actor = xstrdup(json_string_value(m));
	}
	if (!json_is_number(json_object_get(o, "started")))
		return "started";
	r->started = json_number_value(json_object_get(o, "started"));
	if (get_int(o, "pid", true, 1, &r->pid) != 0)
		return "pid";
	r->pid = r->pid < 0 ? 0 : r->pid;
	if (get_int(o, "supervisor_pid", false, 1, &r->supervisor_pid) != 0)
		return "supervisor_pid";
	if (get_state(o, &r->state) != 0)
		return "state";
	if (get_int(o, "exit_code", true, 0, &v) != 0)
		return "exit_code";
	r->exit_code = (int)v;
	if (get_int(o, "signal", true, 1, &v) != 0)
		return "signal";
	r->signal = v < 0 ? 0 : (int)v;
	if (!json_is_null(ended) && !json_is_number(ended))
		return "ended";
	r->ended = json_is_number(ended) ? json_number_value(ended) : 0;
	if (r->state != JOB_RUNNING && r->ended <= 0)
		return "ended";
	/* An older supervisor's record has none of the next three. */
	m = json_object_get(o, "lost_lines");
	if (m != NULL && (!json_is_integer(m) || json_integer_value(m) < 0))
		return "lost_lines";
	r->lost = (uint64_t)json_integer_value(m);
	if (get_start(o, "pid_start", r->pid_start) != 0)
		return "pid_start";
	if (get_start(o, "supervisor_start", r->supervisor_start) != 0)
		return "supervisor_start";
	return NULL;
}

int
jobstore_record_parse(struct job_record *r, const char *text, size_t len,
    char *err, size_t errlen)
{
	const char *bad;
	json_error_t je;
	json_t *o;

	memset(r, 0, sizeof *r);
	if ((o = json_loadb(text, len, 0, &je)) == NULL) {
		errbuf_set(err, errlen, "job.json is not JSON: %s (line %d)",
		    je.text, je.line);
		return -1;
	}
	if (!json_is_object(o))
		bad = "";
	else
		bad = record_members(r, o);
	json_decref(o);
	if (bad == NULL)
		return 0;
	jobstore_record_release(r);
	if (bad[0] == '\0')
		errbuf_set(err, errlen, "job.json is not a JSON object");
	else
		errbuf_set(err, errlen, "job.json: '%s' is missing or wrong",
		    bad);
	return -1;
}

int
jobstore_record_read(struct job_record *r, const char *dir, char *err,
    size_t errlen)
{
	char *text;
	ssize_t n;
	size_t len = 0;
	int dfd, fd = -1, rc;

	memset(r, 0, sizeof *r);
	/* Neither the folder nor the record may be a link (statedir.h). */
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) != -1) {
		fd = statedir_open_file(dfd, dir, "job.json", O_RDONLY, 0, err,
		    errlen);
		rc = errno;
		close(dfd);
		errno = rc;
	}
	if (fd == -1) {
		if (errno == ENOENT)
			errbuf_set(err, errlen, "no job.json");
		else if (dfd == -1)
			errbuf_set(err, errlen, "cannot read job.json: %s",
			    strerror(errno));
		return -1;
	}
	text = xmalloc(RECORD_MAX + 1);
	while (len <= RECORD_MAX &&
	    (n = read(fd, text + len, RECORD_MAX + 1 - len)) != 0) {
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (len > RECORD_MAX) {
		errbuf_set(err, errlen, "job.json is too big");
		rc = -1;
	} else
		rc = jobstore_record_parse(r, text, len, err, errlen);
	free(text);
	return rc;
}

int
jobstore_record_write(const struct job_record *r, int dirfd, char *err,
    size_t errlen)
{
	json_t *o = jobstore_record_json(r);
	char *text, tmp[64];
	int fd, rc = -1;

	text = json_dumps(o, JSON_INDENT(2));
	json_decref(o);
	if (text == NULL)
		fatal("cannot encode job.json");
	/* The final record goes into the space kept for it, written over
	 * in place (no new block needed on a full disk), else a new file. */
	snprintf(tmp, sizeof tmp, "%s", RECORD_RESERVE);
	fd = r->state == JOB_RUNNING ? -1 : openat(dirfd, tmp,
	    O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd == -1) {
		snprintf(tmp, sizeof tmp, "job.json.%ld.tmp", (long)getpid());
		fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC |
		    O_CLOEXEC | O_NOFOLLOW, 0600);
	}
	if (fd != -1 && fileio_write_full(fd, text, strlen(text)) == 0 &&
	    fileio_write_full(fd, "\n", 1) == 0 &&
	    ftruncate(fd, (off_t)strlen(text) + 1) == 0 && fsync(fd) == 0 &&
	    close(fd) == 0) {
		fd = -1;
		if (renameat(dirfd, tmp, dirfd, "job.json") == 0) {
			(void)fsync(dirfd);
			rc = 0;
		}
	}
	if (rc != 0) {
		errbuf_set(err, errlen, "cannot write job.json: %s",
		    strerror(errno));
		if (fd != -1)
			close(fd);
		unlinkat(dirfd, tmp, 0);
	}
	free(text);
	return rc;
}

/* bytes held by fd: allocated, or written where that cannot be done. */
static int
hold(int fd, size_t bytes)
{
	static const char zeros[4096];
	size_t done;

	if (fallocate(fd, 0, 0, (off_t)bytes) == 0)
		return 0;
	if (errno == ENOSPC || errno == EDQUOT || errno == EFBIG)
		return -1;
	for (done = 0; done < bytes; done += sizeof zeros)
		if (fileio_write_full(fd, zeros, sizeof zeros) != 0)
			return -1;
	return 0;
}

int
jobstore_record_reserve(int dirfd, size_t bytes, char *err, size_t errlen)
{
	int fd;

	fd = openat(dirfd, RECORD_RESERVE, O_WRONLY | O_CREAT | O_TRUNC |
	    O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd == -1 || hold(fd, bytes) != 0 || fsync(fd) != 0) {
		errbuf_set(err, errlen, "cannot keep %zu KiB for the job's "
		    "record: %s", bytes >> 10, strerror(errno));
		if (fd != -1)
			close(fd);
		unlinkat(dirfd, RECORD_RESERVE, 0);
		return -1;
	}
	close(fd);
	return 0;
}

/* Fields 3 (state), 5 (process group) and 22 (start time, clock ticks
 * since boot) of /proc/PID/stat; -1 when there is no such process. */
static int
read_stat(long pid, char *state, long *pgrp, unsigned long long *ticks)
{
	char stat[1024], *p, *path;
	ssize_t n;
	int fd, i;

	path = xasprintf("/proc/%ld/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	free(path);
	if (fd == -1)
		return -1;
	n = read(fd, stat, sizeof stat - 1);
	close(fd);
	/* The name, field 2, may hold anything: count from its last ')'. */
	if (n <= 0 || (stat[n] = '\0', p = strrchr(stat, ')')) == NULL ||
	    sscanf(p + 1, " %c %*d %ld", state, pgrp) != 2)
		return -1;
	for (i = 2; i < 22 && p != NULL; i++)
		p = strchr(p + 1, ' ');
	if (p == NULL || sscanf(p, " %llu", ticks) != 1)
		return -1;
	return 0;
}

char
jobstore_proc_state(long pid, long *pgrp)
{
	unsigned long long ticks;
	char state;

	return read_stat(pid, &state, pgrp, &ticks) == 0 ? state : 0;
}

int
jobstore_pid_start(long pid, char *buf, size_t len)
{
	unsigned long long ticks;
	char boot[64] = "", state;
	ssize_t n;
	long pgrp;
	int fd;

	if (read_stat(pid, &state, &pgrp, &ticks) != 0)
		return -1;
	if ((fd = open("/proc/sys/kernel/random/boot_id",
	    O_RDONLY | O_CLOEXEC)) != -1) {
		if ((n = read(fd, boot, sizeof boot - 1)) > 0)
			boot[strcspn(boot, "\n")] = '\0';
		close(fd);
	}
	snprintf(buf, len, "%s:%llu", boot[0] != '\0' ? boot : "?", ticks);
	return 0;
}

bool
jobstore_supervisor_alive(const char *dir)
{
	char *path = xasprintf("%s/lock", dir);
	bool alive;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	free(path);
	if (fd == -1)
		return false;
	alive = flock(fd, LOCK_SH | LOCK_NB) == -1 && errno == EWOULDBLOCK;
	close(fd);
	return alive;
}

int
jobstore_check(const char *root, const char *id, char *err, size_t errlen)
{
	static const char *const files[] = { "job.json", "events.jsonl",
	    "lock", "supervisor.log" };
	struct stat st;
	char *dir;
	size_t i;
	int rootfd, fd = -1, rc = -1, e;

	if ((rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		if ((e = errno) == ENOENT)
			errbuf_set(err, errlen, "no job '%s'", id);
		else
			errbuf_set(err, errlen, "cannot read the jobs folder "
			    "'%s': %s", root, strerror(e));
	} else if (fstatat(rootfd, id, &st, AT_SYMLINK_NOFOLLOW) == -1 ||
	    (!S_ISDIR(st.st_mode) && !S_ISLNK(st.st_mode))) {
		errbuf_set(err, errlen, "no job '%s'", id);
		e = ENOENT;
	} else {
		fd = statedir_open_dir(rootfd, root, id, "the job folder",
		    false, err, errlen);
		e = errno;
	}
	if (rootfd != -1)
		close(rootfd);
	if (fd != -1) {
		dir = xasprintf("%s/%s", root, id);
		for (i = 0, rc = 0; i < nitems(files) && rc != -1; i++)
			rc = statedir_check_file(fd, dir, files[i], err,
			    errlen);
		rc = rc == -1 ? -1 : 0;
		e = EACCES;
		free(dir);
		close(fd);
	}
	errno = e;
	return rc;
}

int
jobstore_look(const char *root, const char *id, struct job_record *r, char *err,
    size_t errlen)
{
	char *dir;
	int state;

	memset(r, 0, sizeof *r);
	if (!jobstore_id_valid(id)) {
		errbuf_set(err, errlen, "no job '%s'", id);
		return -1;
	}
	/* A folder that is a link or not the user's own, or holds a link,
	 * is nobody's job: its record could name any process to kill. */
	if (jobstore_check(root, id, err, errlen) != 0)
		return errno == ENOENT ? -1 : JOB_CORRUPT;
	dir = xasprintf("%s/%s", root, id);
	if (jobstore_record_read(r, dir, err, errlen) != 0)
		state = JOB_CORRUPT;
	else if (strcmp(r->id, id) != 0) {
		errbuf_set(err, errlen, "job.json is for job '%s'", r->id);
		jobstore_record_release(r);
		state = JOB_CORRUPT;
	} else if (r->state == JOB_RUNNING && !jobstore_supervisor_alive(dir)) {
		/* It may just have ended: read the record once more. */
		jobstore_record_release(r);
		if (jobstore_record_read(r, dir, err, errlen) != 0)
			state = JOB_CORRUPT;
		else
			state = r->state == JOB_RUNNING ? JOB_LOST :
			    (int)r->state;
	} else
		state = (int)r->state;
	free(dir);
	return state;
}

static int
compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char **
jobstore_list(const char *root, char *err, size_t errlen)
{
	char **names = xcalloc(1, sizeof *names);
	struct dirent *de;
	size_t n = 0;
	DIR *d = NULL;
	int fd;

	fd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1 && errno == ENOENT)
		return names;
	if (fd == -1 || (d = fdopendir(fd)) == NULL) {
		errbuf_set(err, errlen, "cannot read '%s': %s", root,
		    strerror(errno));
		if (fd != -1)
			close(fd);
		free(names);
		return NULL;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || (de->d_type != DT_DIR &&
		    de->d_type != DT_UNKNOWN && de->d_type != DT_LNK))
			continue;
		names = xreallocarray(names, n + 2, sizeof *names);
		names[n++] = xstrdup(de->d_name);
		names[n] = NULL;
	}
	closedir(d);
	qsort(names, n, sizeof *names, compare_names);
	return names;
}

char *
jobstore_default_actor(void)
{
	struct passwd *pw;
	const char *env = getenv("CALOPS_ACTOR");
	char host[256], *actor;

	/* A shared lab account's people say who they are. */
	if (env != NULL && env[0] != '\0' && text_plain_line(env, NULL, 0))
		return xstrdup(env);
	pw = getpwuid(getuid());
	if (gethostname(host, sizeof host) != 0)
		snprintf(host, sizeof host, "?");
	host[sizeof host - 1] = '\0';
	actor = xasprintf("%s@%s", pw != NULL ? pw->pw_name : "?", host);
	if (!text_plain_line(actor, NULL, 0)) {
		free(actor);
		actor = xasprintf("uid %u", (unsigned)getuid());
	}
	return actor;
}

void
jobstore_format_age(double secs, char *buf, size_t len)
{
	long s = secs > 0 && secs < 1e12 ? (long)secs : 0;

	if (s < 60)
		snprintf(buf, len, "%lds", s);
	else if (s < 3600)
		snprintf(buf, len, "%ldm%02lds", s / 60, s % 60);
	else if (s < 86400)
		snprintf(buf, len, "%ldh%02ldm", s / 3600, s % 3600 / 60);
	else
		snprintf(buf, len, "%ldd%02ldh", s / 86400, s % 86400 / 3600);
}
