/*
 * linewin.h: a window on a long run of lines a host holds (a workspace's
 * file, a job's events), what the remote file viewer (pager.c) and the job
 * log (joblog.c) keep of them: at most keep items, fetched a chunk at a time
 * through the host's transport, after those held or before them; when more
 * than keep are held, the ones at the other end from where the reader went
 * go (linewin.c).
 */
#ifndef CALOPS_LINEWIN_H
#define CALOPS_LINEWIN_H

#include "calops.h"

struct linewin;
struct rstream;
struct transport;

/* Where a fetch's lines go: after those held, before them, or in their
 * place (a jump, to the first line of a run or back to its end). */
enum linewin_where { LINEWIN_AFTER, LINEWIN_BEFORE, LINEWIN_INSTEAD };

struct linewin_ops {
	/* One line the fetch printed (borrowed, no newline; cut when the
	 * transport had to): its items, none or more, by linewin_push(). */
	void	(*line)(struct linewin *, const char *line, size_t len,
		    bool cut, void *arg);
	/* The fetch ended: its items joined where it was told (dropped gone
	 * from the other end, or all those held before for INSTEAD), or err
	 * says why not and nothing held changed. */
	void	(*done)(struct linewin *, const char *err,
		    enum linewin_where where, size_t added, size_t dropped,
		    void *arg);
	/* Free what an item holds (not the item). */
	void	(*release)(void *item);
};

struct linewin {
	const struct linewin_ops *ops;
	void		*arg;
	size_t		 size;		/* of an item */
	size_t		 keep;		/* items held at most */
	char		*v;		/* n items */
	size_t		 n, cap;
	/* The fetch running, or rs NULL. */
	struct rstream	*rs;
	enum linewin_where where;
	size_t		 printed;	/* lines it printed */
	char		*got;		/* ngot items made of them */
	size_t		 ngot, gotcap;
	char		 err[300];	/* the first word of its stderr */
	char		*host;
};

void	 linewin_init(struct linewin *w, size_t size, size_t keep,
	    const struct linewin_ops *ops, void *arg);
void	 linewin_release(struct linewin *w);
/* Item i of those held. */
void	*linewin_item(const struct linewin *w, size_t i);
/* Add k items (copied) after those held or before them; the number dropped
 * from the other end to hold no more than keep, a tenth of keep at once
 * when the reader went on (after), so that a log followed line by line is
 * not moved for each line. */
size_t	 linewin_add(struct linewin *w, const void *items, size_t k,
	    bool before);
/* Let every item held go. */
void	 linewin_clear(struct linewin *w);
/* From ops->line: an item (copied) made of the line. */
void	 linewin_push(struct linewin *w, const void *item);
/* Run argv on t (host's, named in messages) and put what it prints where
 * told; -1 when one is running (callers ask linewin_busy() first), or
 * with err set when it cannot start. */
int	 linewin_fetch(struct linewin *w, struct transport *t,
	    const char *host, char *const *argv, enum linewin_where where);
bool	 linewin_busy(const struct linewin *w);

#endif
