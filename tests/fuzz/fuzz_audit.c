/*
 * fuzz_audit.c: relaudit_verify on anything, with a fixed keyring: "fuzz" (the
 * public half of the throwaway key mkaudit.sh signed the seed
 * logs, see mkaudit.sh) and "other".  A log either verifies, or fails with
 * the line of the first broken link; never a crash.
 */
#include "calops.h"

#include "release/keyring.h"
#include "release/relaudit.h"

int	LLVMFuzzerInitialize(int *argc, char ***argv);
int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char fuzz_pub[] =
    "-----BEGIN PUBLIC KEY-----\n"
    "MCowBQYDK2VwAyEAMrQHtgww+ppltiM/YczIg4pgf6kityPqfnRkRbsiRfE=\n"
    "-----END PUBLIC KEY-----\n";
static const char other_pub[] =
    "-----BEGIN PUBLIC KEY-----\n"
    "MCowBQYDK2VwAyEA6Qko6BFRqeejlU4n0O7nFHOhhveuZak8sbxO2EYkVXI=\n"
    "-----END PUBLIC KEY-----\n";

static struct keyring kr;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char err[128];

	(void)argc;
	(void)argv;
	if (keyring_add_pem(&kr, "fuzz", fuzz_pub, strlen(fuzz_pub), err,
	    sizeof err) != 0 || keyring_add_pem(&kr, "other", other_pub,
	    strlen(other_pub), err, sizeof err) != 0)
		abort();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct audit_state st;
	size_t i, lines = 0;

	for (i = 0; i < size; i++)
		lines += data[i] == '\n';
	if (relaudit_verify((const char *)data, size, &kr, &st) == 0) {
		if (st.bad_line != 0 || st.records != lines ||
		    strlen(st.last_line_sha256) != 64)
			abort();
		return 0;
	}
	if (st.bad_line == 0 || st.bad_line > lines + 1 ||
	    st.problem[0] == '\0' || st.records != st.bad_line - 1)
		abort();
	return 0;
}
