/*
 * test_lab.c: the lab file (remote/lab.c): the bundled demo lab and the
 * protocol.md §4 example load, relative paths start at the lab file's
 * folder, and every validation error is worded FILE:LINE:COL: message,
 * pointing at the offending value.
 */
#include "calops.h"

#include <setjmp.h>
#include <unistd.h>

#include <cmocka.h>

#include "lab.h"

static const char example[] =
    "hosts:\n"
    "  - name: local\n"
    "    transport: local\n"
    "  - name: lab3\n"
    "    transport: ssh\n"
    "    address: lab3.example.net\n"
    "    user: npu\n"
    "    port: 22\n"
    "    identity: ~/.ssh/id_ed25519\n"
    "    known_hosts: keys/known\n"
    "    chips: [0, 1]\n"
    "workspaces:\n"
    "  - {host: lab3, path: /data/model-port/qwen3-1.7b}\n"
    "  - {host: local, path: ws}\n"
    "runner: calrt_runner\n";

static void
test_example(void **state)
{
	struct lab lab;
	const struct lab_host *h;
	char err[512] = "";

	(void)state;
	setenv("HOME", "/home/op", 1);
	assert_int_equal(lab_parse(&lab, example, strlen(example),
	    "/etc/lab/lab.yaml", err, sizeof err), 0);
	assert_int_equal(lab.nhosts, 2);
	assert_int_equal(lab.nworkspaces, 2);
	assert_string_equal(lab.runner, "calrt_runner");
	h = lab_host(&lab, "lab3");
	assert_non_null(h);
	assert_int_equal(h->transport, LAB_SSH);
	assert_string_equal(h->address, "lab3.example.net");
	assert_string_equal(h->user, "npu");
	assert_int_equal(h->port, 22);
	assert_string_equal(h->identity, "/home/op/.ssh/id_ed25519");
	assert_string_equal(h->known_hosts, "/etc/lab/keys/known");
	assert_int_equal(h->nchips, 2);
	assert_int_equal(h->chips[1], 1);
	h = lab_host(&lab, "local");
	assert_non_null(h);
	assert_int_equal(h->transport, LAB_LOCAL);
	assert_int_equal(h->nchips, 0);
	assert_null(lab_host(&lab, "nope"));
	assert_string_equal(lab.workspaces[0].path,
	    "/data/model-port/qwen3-1.7b");
	assert_string_equal(lab.workspaces[1].path, "/etc/lab/ws");
	lab_release(&lab);
}

static void
test_demo(void **state)
{
	const char *src = getenv("CALOPS_SOURCE_DIR");
	struct lab lab;
	char err[512] = "", *path, *ws;

	(void)state;
	if (src == NULL)
		src = ".";
	path = xasprintf("%s/share/examples/demo-lab.yaml", src);
	ws = xasprintf("%s/share/examples/midproject", src);
	if (lab_load(&lab, path, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(lab.nhosts, 1);
	assert_string_equal(lab.hosts[0].name, "local");
	assert_int_equal(lab.hosts[0].transport, LAB_LOCAL);
	assert_int_equal(lab.hosts[0].nchips, 4);
	assert_int_equal(lab.hosts[0].chips[3], 3);
	assert_string_equal(lab.workspaces[0].path, ws);
	assert_int_equal(access(ws, F_OK), 0);
	assert_string_equal(lab.runner, "calrt-sim");
	lab_release(&lab);
	free(ws);
	free(path);
}

static const struct {
	const char	*text;
	const char	*err;
} bad[] = {
	{ "hosts: []\nrunnr: x\n", "lab.yaml:2:8: unknown key 'runnr'" },
	{ "hosts:\n  - name: a\n    transport: local\n    adress: x\n",
	  "lab.yaml:4:13: unknown key 'adress'" },
	{ "hosts:\n  - name: a\n    transport: telnet\n",
	  "lab.yaml:3:16: unknown transport 'telnet' (local or ssh)" },
	{ "hosts:\n  - name: a\n", "lab.yaml:2:5: 'transport' is required" },
	{ "hosts:\n  - {name: a, transport: local}\n"
	  "  - {name: a, transport: local}\n",
	  "lab.yaml:3:12: duplicate host name 'a'" },
	{ "hosts:\n  - {name: a, transport: local}\nworkspaces:\n"
	  "  - {host: b, path: /x}\n",
	  "lab.yaml:4:12: unknown host 'b'" },
	{ "hosts:\n  - {name: a, transport: ssh, address: h, port: 0}\n",
	  "lab.yaml:2:49: 'port' must be an integer from 1 to 65535" },
	{ "hosts:\n  - {name: a, transport: ssh, address: h, port: x}\n",
	  "lab.yaml:2:49: 'port' must be an integer from 1 to 65535" },
	{ "hosts:\n  - {name: a, transport: ssh, address: h,\n"
	  "     port: 70000}\n",
	  "lab.yaml:3:12: 'port' must be an integer from 1 to 65535" },
	{ "hosts:\n  - {name: a, transport: local, chips: 3}\n",
	  "lab.yaml:2:40: 'chips' must be a list of chip numbers, not an "
	  "integer" },
	{ "hosts:\n  - {name: a, transport: local, chips: [0, -1]}\n",
	  "lab.yaml:2:44: a chip must be an integer from 0 to 4095" },
	{ "hosts:\n  - {name: a, transport: local, chips: [0, x]}\n",
	  "lab.yaml:2:44: a chip must be an integer from 0 to 4095" },
	{ "hosts:\n  - {name: a, transport: ssh}\n",
	  "lab.yaml:2:5: 'address' is required" },
	{ "hosts:\n  - {name: a, transport: ssh, address: h}\nworkspaces:\n"
	  "  - {host: a, path: rel}\n",
	  "lab.yaml:4:21: a workspace on ssh host 'a' must be an absolute "
	  "path" },
	{ "hosts: {a: 1}\n", "lab.yaml:1:8: 'hosts' must be a list, not a "
	  "mapping" },
	{ "- 1\n", "lab.yaml:1:1: a lab file must be a mapping, not a list" },
	{ "hosts: [\n", "lab.yaml:2:1: " },
};

static void
test_errors(void **state)
{
	struct lab lab;
	char err[512];
	size_t i;
	int failed = 0;

	(void)state;
	for (i = 0; i < nitems(bad); i++) {
		err[0] = '\0';
		if (lab_parse(&lab, bad[i].text, strlen(bad[i].text),
		    "lab.yaml", err, sizeof err) == 0)
			fail_msg("case %zu: no error", i);
		if (strncmp(err, bad[i].err, strlen(bad[i].err)) != 0) {
			print_error("case %zu: '%s', not '%s'\n", i, err,
			    bad[i].err);
			failed++;
		}
		assert_int_equal(lab.nhosts, 0);
		lab_release(&lab);
	}
	assert_int_equal(failed, 0);
}

static void
test_missing(void **state)
{
	struct lab lab;
	char err[512] = "";

	(void)state;
	assert_int_equal(lab_load(&lab, "/nonexistent/lab.yaml", err,
	    sizeof err), -1);
	assert_non_null(strstr(err, "cannot open '/nonexistent/lab.yaml'"));
	lab_release(&lab);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_example),
		cmocka_unit_test(test_demo),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_missing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
