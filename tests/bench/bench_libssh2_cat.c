/*
 * bench_libssh2_cat.c: libssh2 alone, the ceiling of calops' SSH transport,
 * for tests/bench/bench_ssh.sh.
 *
 *	bench_libssh2_cat PORT USER IDENTITY COMMAND
 *
 * The simplest reader libssh2 allows: a blocking session to 127.0.0.1:PORT,
 * the cipher remote/ssh.c asks for first (aes128-ctr), the MAC libssh2
 * negotiates,
 * the key file, one exec channel running COMMAND, read to its end in
 * 256 KiB reads and thrown away.  No poll loop, no line splitting, no host
 * key check (loopback, a benchmark): what is left is what libssh2 itself
 * costs.  The heap is tuned as remote/ssh.c tunes it (SSH_HEAP_KEEP), so
 * that this is the best libssh2 can do here, not glibc's page faults.
 * libssh2 1.10 decrypts a packet one 16-byte cipher block per EVP_Cipher
 * call, where OpenSSH decrypts it whole; this program puts a number on
 * that, so that the transport's throughput can be read against what its
 * library allows as well as against OpenSSH.
 *
 * Prints "run_ms=… bytes=… cipher=… mac=…", run_ms from the exec request
 * to the channel's end.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <libssh2.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define READ_SIZE	(256 * 1024)

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int
fail(LIBSSH2_SESSION *sess, const char *what)
{
	char *msg = NULL;

	if (sess != NULL)
		libssh2_session_last_error(sess, &msg, NULL, 0);
	fprintf(stderr, "bench_libssh2_cat: %s%s%s\n", what,
	    msg != NULL ? ": " : "", msg != NULL ? msg : "");
	return 1;
}

int
main(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	LIBSSH2_SESSION *sess;
	LIBSSH2_CHANNEL *ch;
	unsigned long long bytes = 0;
	double t0, t1;
	ssize_t n;
	static char buf[READ_SIZE];
	char *end;
	long port;
	int fd;

	if (argc != 5) {
		fprintf(stderr, "usage: bench_libssh2_cat PORT USER IDENTITY "
		    "COMMAND\n");
		return 2;
	}
	(void)mallopt(M_TRIM_THRESHOLD, 8 << 20);
	port = strtol(argv[1], &end, 10);
	if (*argv[1] == '\0' || *end != '\0' || port < 1 || port > 65535)
		return fail(NULL, "the port is 1 to 65535");
	sa.sin_port = htons((unsigned short)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
	    connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0)
		return fail(NULL, "cannot connect");
	if (libssh2_init(0) != 0 || (sess = libssh2_session_init()) == NULL)
		return fail(NULL, "cannot start libssh2");
	/* As remote/ssh.c's cipher_pref(): AES-128 first. */
	(void)libssh2_session_method_pref(sess, LIBSSH2_METHOD_CRYPT_CS,
	    "aes128-ctr,aes192-ctr,aes256-ctr");
	(void)libssh2_session_method_pref(sess, LIBSSH2_METHOD_CRYPT_SC,
	    "aes128-ctr,aes192-ctr,aes256-ctr");
	if (libssh2_session_handshake(sess, fd) != 0)
		return fail(sess, "handshake");
	if (libssh2_userauth_publickey_fromfile(sess, argv[2], NULL, argv[3],
	    NULL) != 0)
		return fail(sess, "authentication");
	if ((ch = libssh2_channel_open_session(sess)) == NULL)
		return fail(sess, "opening a channel");
	t0 = now_ms();
	if (libssh2_channel_exec(ch, argv[4]) != 0)
		return fail(sess, "exec");
	while ((n = libssh2_channel_read(ch, buf, sizeof buf)) > 0)
		bytes += (unsigned long long)n;
	if (n < 0)
		return fail(sess, "reading");
	t1 = now_ms();
	printf("run_ms=%.1f bytes=%llu cipher=%s mac=%s\n", t1 - t0, bytes,
	    libssh2_session_methods(sess, LIBSSH2_METHOD_CRYPT_SC),
	    libssh2_session_methods(sess, LIBSSH2_METHOD_MAC_SC));
	libssh2_channel_free(ch);
	libssh2_session_disconnect(sess, "done");
	libssh2_session_free(sess);
	libssh2_exit();
	close(fd);
	return 0;
}
