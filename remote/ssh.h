/*
 * ssh.h: the SSH transport (transport.h, ssh.c): libssh2, non-blocking in
 * the one loop, a host key judged against known_hosts before any
 * authentication, keepalives, reconnection with backoff (protocol.md §6).
 */
#ifndef CALOPS_SSH_H
#define CALOPS_SSH_H

#include "calops.h"

#include "loop/loop.h"
#include "remote/transport.h"

struct buf;
struct lab_host;

/*
 * The SSH transport (ssh.c): h, an ssh host of the lab file labfile, with
 * ~/.ssh/config (config: another file, NULL: the user's) merged in
 * (sshhost.h).  It starts connecting at once, in the loop: connect()
 * returns 0 and the state says how it goes.  A host whose config gives a
 * ProxyJump is reached through its jump hosts, each a session of its own
 * (shared by every host behind it, freed with the last of them; their
 * states in the host's status), a ProxyCommand through that command's
 * stdin and stdout.  NULL with err when the host's settings cannot be used
 * (an unknown %-token in IdentityFile or ProxyCommand, a jump host that
 * is none, a ProxyJump leading through more than TRANSPORT_JUMPS_MAX).
 * A config that makes the name canonical (CanonicalizeHostname) is read
 * to the end only once a thread has looked the names up: the transport is
 * connecting meanwhile, and an error found then refuses it (its error
 * says why; reconnect reads the config again).
 */
struct transport	*ssh_transport_new(struct loop *l,
			    const struct lab_host *h, const char *labfile,
			    const char *config, char *err, size_t errlen);

/*
 * What an SSH transport connects with (sshhost.h: the address, port,
 * user, identities, known_hosts files and host key policy, the ssh_config
 * keywords it ignores), borrowed for as long as t lives; NULL for a
 * transport that is not ssh.c's, or whose settings are not read yet (a
 * canonical name looked up) or failed.
 */
struct sshhost;
const struct sshhost	*ssh_transport_host(struct transport *t);
/*
 * The nth jump host (0: the first hop, the one connected to directly) on
 * t's way, as ssh_transport_host, its ProxyJump entry as written in
 * *spec; NULL past the last, or for a transport that is not ssh.c's.
 */
const struct sshhost	*ssh_transport_jump(struct transport *t, size_t n,
			    const char **spec);

/* ARGV as one command line for a POSIX shell, each word single-quoted
 * (a ' as '\''), so that the remote shell gives the program exactly
 * ARGV; appended to *b.  For the ssh exec channel, which takes a string. */
void			 ssh_quote_argv(struct buf *b, char *const argv[]);

#endif
