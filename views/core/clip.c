/* clip.c: y's text to the terminal's clipboard and a file (clip.h). */
#include "calops.h"

#include <fcntl.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/statedir.h"
#include "views/core/clip.h"

static const char b64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *
clip_osc52(const char *text)
{
	const unsigned char *p = (const unsigned char *)text;
	size_t n = strlen(text), i, o;
	unsigned long v;
	char *s = xmalloc(7 + 4 * ((n + 2) / 3) + 2);

	memcpy(s, "\033]52;c;", 7);
	o = 7;
	for (i = 0; i < n; i += 3) {
		v = (unsigned long)p[i] << 16;
		if (i + 1 < n)
			v |= (unsigned long)p[i + 1] << 8;
		if (i + 2 < n)
			v |= p[i + 2];
		s[o++] = b64[v >> 18 & 63];
		s[o++] = b64[v >> 12 & 63];
		s[o++] = i + 1 < n ? b64[v >> 6 & 63] : '=';
		s[o++] = i + 2 < n ? b64[v & 63] : '=';
	}
	s[o++] = '\a';
	s[o] = '\0';
	return s;
}

bool
clip_terminal_takes(const char *term)
{
	return term != NULL && *term != '\0' && strcmp(term, "dumb") != 0 &&
	    strcmp(term, "linux") != 0;
}

int
clip_save(const char *name, const char *text, char **pathp, char *err,
    size_t errlen)
{
	char *dir = NULL;
	int dfd, fd, rc = -1;

	*pathp = NULL;
	dfd = statedir_open("copied", "the folder of copied text", true, &dir,
	    err, errlen);
	if (dfd == -1)
		return -1;
	fd = statedir_open_file(dfd, dir, name, O_WRONLY | O_CREAT | O_TRUNC,
	    0600, err, errlen);
	if (fd != -1) {
		if (fileio_write_full(fd, text, strlen(text)) != 0) {
			snprintf(err, errlen, "cannot write '%s/%s': %s", dir,
			    name, strerror(errno));
			close(fd);
		} else if (close(fd) != 0)
			snprintf(err, errlen, "cannot write '%s/%s': %s", dir,
			    name, strerror(errno));
		else {
			*pathp = xasprintf("%s/%s", dir, name);
			rc = 0;
		}
	}
	close(dfd);
	free(dir);
	return rc;
}
