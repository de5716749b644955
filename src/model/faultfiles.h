/*
 * faultfiles.h: the fault results one host's workspace holds
 * (06-runtime/faults/<scenario>.json, workspace.md §3 G7), read through the
 * host's calops (`calops cat`, built by proto/hostcmd.h) over the lab
 * model's transport, one command per scenario, all at once.  They are the
 * lab's newest result of each scenario on that host, whichever console or
 * person ran it: the Faults screen shows them over the results this
 * console followed as events (faultfold.h).  No ncurses: the owner draws.
 *
 * A scenario with no file is "none"; a file that cannot be read or is not
 * a result says why (its parser's words), never taken for a result.
 *
 * Ownership: struct faultfiles is made by faultfiles_new() and freed by
 * faultfiles_free(), which cancels what still runs; it borrows the lab
 * model (which must outlive it).  The files handed out are the list's,
 * valid until the next faultfiles_load() or the changed hook.
 */
#ifndef CALOPS_FAULTFILES_H
#define CALOPS_FAULTFILES_H

#include "calops.h"

#include "model/faultfold.h"

struct labmodel;
struct faultfiles;

/* changed(arg) is called as each read ends (mark dirty, redraw). */
struct faultfiles *faultfiles_new(struct labmodel *lm,
		    void (*changed)(void *), void *arg);
void		 faultfiles_free(struct faultfiles *ff);

/* Read the files of workspace ws on host again (both copied); what was
 * read before stays until each new read ends. */
void		 faultfiles_load(struct faultfiles *ff, const char *host,
		    const char *ws);

/* The host and workspace last loaded (NULL before). */
const char	*faultfiles_host(const struct faultfiles *ff);
const char	*faultfiles_ws(const struct faultfiles *ff);

/* How many reads are under way. */
size_t		 faultfiles_pending(const struct faultfiles *ff);

/* The results read, for faultfold's src (borrowed), how many in *np. */
struct fold_file *faultfiles_files(struct faultfiles *ff, size_t *np);

/* For scenario_table's entry s: why its file gave no result ("" when it
 * did, "none" when there is no file). */
const char	*faultfiles_why(const struct faultfiles *ff, size_t s);

#endif
