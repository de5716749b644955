/*
 * buf.h: a growable byte buffer with a cap (curl's dyn).  Text from files and
 * hosts is hostile; every buffer that grows from it says how far it may grow.
 *
 * A struct buf is owned by whoever declared it; buf_release() frees its bytes.
 * The data is always NUL-terminated so it can be used as a C string.
 */
#ifndef CALOPS_BUF_H
#define CALOPS_BUF_H

#include "calops.h"

struct buf {
	char	*data;
	size_t	 len;
	size_t	 alloc;
	size_t	 cap;		/* 0: no cap */
};

#define BUF_INIT { NULL, 0, 0, 0 }

void	 buf_init(struct buf *b, size_t cap);
void	 buf_release(struct buf *b);
void	 buf_reset(struct buf *b);
/* Append; returns -1 (and appends nothing) when the cap would be passed. */
int	 buf_add(struct buf *b, const void *data, size_t len);
int	 buf_addc(struct buf *b, char c);
int	 buf_adds(struct buf *b, const char *s);
int	 buf_addf(struct buf *b, const char *fmt, ...) PRINTFLIKE(2, 3);
/* Hand the bytes over to the caller (to free()); the buffer is reset. */
char	*buf_detach(struct buf *b, size_t *len);

#endif
