/*
 * knownhosts_add.h: a new host key written to a known_hosts file
 * (knownhosts_add.c), as ssh's accept-new or the operator's yes adds one.
 */
#ifndef CALOPS_KNOWNHOSTS_ADD_H
#define CALOPS_KNOWNHOSTS_ADD_H

#include <stddef.h>

/*
 * Add the key blob for host at port to the file at path, once the
 * operator said yes (or the lab file's accept_new): a line "NAME TYPE
 * BASE64", NAME being "[host]:port" when port is not 22, hashed as
 * `ssh-keygen -H` would when the file already holds a hashed name (Debian's
 * ssh_config turns HashKnownHosts on; a file without one stays readable),
 * after a line feed when the last line had none.  Every existing byte is
 * kept.  The file is re-read here, and a key the file now revokes or that
 * disagrees with it (a key of any type known), or for a host a
 * @cert-authority line applies to, is refused, so that a yes given to an
 * older verdict cannot override a newer one.  Written atomically with the
 * file's mode, or 0600 for a new file, its missing folders made 0700; a
 * symbolic link or anything but a regular file at path is refused, never
 * written through, and the file is read again when another writer changed
 * it meanwhile (looked at just before the rename).  0 when added, 1 when
 * the key was already known for the host (nothing written), -1 with err.
 */
int	 knownhosts_add(const char *path, const char *host, int port,
	    const void *blob, size_t len, char *err, size_t errlen);

#endif
