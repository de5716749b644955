/*
 * sshwire.h: reading SSH's wire format (RFC 4251 §5), shared by the
 * readers of keys: known_hosts lines (knownhosts.c) and identity files
 * (sshkey.c).
 */
#ifndef CALOPS_SSHWIRE_H
#define CALOPS_SSHWIRE_H

#include "calops.h"

/* The string at *p of a blob ending at end (a uint32 length, bytes): its
 * bytes and length, and *p past it; false when the blob is cut short. */
static inline bool
sshwire_string(const unsigned char **p, const unsigned char *end,
    const unsigned char **s, size_t *len)
{
	uint32_t n;

	if (end - *p < 4)
		return false;
	n = (uint32_t)(*p)[0] << 24 | (uint32_t)(*p)[1] << 16 |
	    (uint32_t)(*p)[2] << 8 | (*p)[3];
	*p += 4;
	if ((size_t)(end - *p) < n)
		return false;
	*s = *p;
	*len = n;
	*p += n;
	return true;
}

#endif
