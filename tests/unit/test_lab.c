/*
 * test_lab.c: the lab file (remote/lab.c): the bundled demo lab and the
 * protocol.md §4 example load, relative paths start at the lab file's
 * folder, the runner is a string split on blanks or a list of arguments,
 * and every validation error is worded FILE:LINE:COL: message, pointing at
 * the offending value.
 */
#include "calops.h"

#include <setjmp.h>
#include <unistd.h>

#include <cmocka.h>

#include "remote/lab.h"

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
	assert_int_equal(lab.runner_argc, 1);
	assert_string_equal(lab.runner_argv[0], "calrt_runner");
	assert_null(lab.runner_argv[1]);
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
	ws = xasprintf("%s/share/examples/labdemo", src);
	if (lab_load(&lab, path, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(lab.nhosts, 1);
	assert_string_equal(lab.hosts[0].name, "local");
	assert_int_equal(lab.hosts[0].transport, LAB_LOCAL);
	assert_int_equal(lab.hosts[0].nchips, 4);
	assert_int_equal(lab.hosts[0].chips[3], 3);
	assert_string_equal(lab.workspaces[0].path, ws);
	assert_int_equal(access(ws, F_OK), 0);
	assert_string_equal(lab.runner, "calrt-sim --time-scale 3000");
	assert_int_equal(lab.runner_argc, 3);
	assert_string_equal(lab.runner_argv[0], "calrt-sim");
	assert_string_equal(lab.runner_argv[1], "--time-scale");
	assert_string_equal(lab.runner_argv[2], "3000");
	assert_null(lab.runner_argv[3]);
	lab_release(&lab);
	free(ws);
	free(path);
}

/* parse text that must load; fail with its error otherwise. */
static void
parse_ok(struct lab *lab, const char *text)
{
	char err[512] = "";

	if (lab_parse(lab, text, strlen(text), "/l/lab.yaml", err,
	    sizeof err) != 0)
		fail_msg("'%s': %s", text, err);
}

/* runner: a string split on any run of blanks, or a list taken as is. */
static void
test_runner(void **state)
{
	struct lab lab;

	(void)state;
	parse_ok(&lab, "runner: \"  calrt-sim\\t--time-scale  3000 \"\n");
	assert_int_equal(lab.runner_argc, 3);
	assert_string_equal(lab.runner_argv[0], "calrt-sim");
	assert_string_equal(lab.runner_argv[1], "--time-scale");
	assert_string_equal(lab.runner_argv[2], "3000");
	assert_null(lab.runner_argv[3]);
	assert_string_equal(lab.runner, "  calrt-sim\t--time-scale  3000 ");
	lab_release(&lab);

	/* A folded scalar over two lines is one string of words. */
	parse_ok(&lab, "runner: >-\n  /opt/calrt/bin/calrt_runner\n"
	    "  --log-dir /var/log\n");
	assert_int_equal(lab.runner_argc, 3);
	assert_string_equal(lab.runner_argv[2], "/var/log");
	lab_release(&lab);

	/* A list: blanks and quotes inside an argument are kept. */
	parse_ok(&lab, "runner:\n  - /opt/calrt/bin/calrt_runner\n"
	    "  - --log-dir\n  - \"/var/log/calrt run\"\n  - it's\n");
	assert_int_equal(lab.runner_argc, 4);
	assert_string_equal(lab.runner_argv[0],
	    "/opt/calrt/bin/calrt_runner");
	assert_string_equal(lab.runner_argv[2], "/var/log/calrt run");
	assert_string_equal(lab.runner_argv[3], "it's");
	assert_null(lab.runner_argv[4]);
	assert_string_equal(lab.runner, "/opt/calrt/bin/calrt_runner "
	    "--log-dir /var/log/calrt run it's");
	lab_release(&lab);

	parse_ok(&lab, "runner: [calrt-sim]\n");
	assert_int_equal(lab.runner_argc, 1);
	assert_string_equal(lab.runner, "calrt-sim");
	lab_release(&lab);

	/* No runner: nothing, and the console's default is the simulator. */
	parse_ok(&lab, "hosts: []\n");
	assert_null(lab.runner);
	assert_null(lab.runner_argv);
	assert_int_equal(lab.runner_argc, 0);
	lab_release(&lab);
	assert_string_equal(LAB_DEFAULT_RUNNER, "calrt-sim");
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
	{ "runner: \"\"\n", "lab.yaml:1:9: 'runner' must name a program" },
	{ "runner: \"  \\t \"\n",
	  "lab.yaml:1:9: 'runner' must name a program" },
	{ "runner: []\n", "lab.yaml:1:9: 'runner' must name a program" },
	{ "runner:\n", "lab.yaml:1:8: 'runner' must be a string or a list "
	  "of strings, not empty" },
	{ "runner: 3\n", "lab.yaml:1:9: 'runner' must be a string or a list "
	  "of strings, not an integer" },
	{ "runner: {a: b}\n", "lab.yaml:1:9: 'runner' must be a string or a "
	  "list of strings, not a mapping" },
	{ "runner: [calrt-sim, 3000]\n",
	  "lab.yaml:1:21: a runner argument must be a string, not an integer" },
	{ "runner:\n  - calrt-sim\n  - [x]\n",
	  "lab.yaml:3:5: a runner argument must be a string, not a list" },
	{ "runner:\n  - calrt-sim\n  -\n",
	  "lab.yaml:3:4: a runner argument must be a string, not empty" },
	{ "runner: [calrt-sim, \"\"]\n",
	  "lab.yaml:1:21: a runner argument must be a non-empty string" },
	{ "runner: calrt_runner --log-dir \"/var/log/a b\"\n",
	  "lab.yaml:1:9: 'runner' is split on blanks with no shell quoting: "
	  "give it as a list of arguments instead of quoting" },
	{ "runner: calrt_runner it\\'s\n",
	  "lab.yaml:1:9: 'runner' is split on blanks with no shell quoting" },
	/* Host names name folders: no climbing out, no escapes. */
	{ "hosts:\n  - {name: ../../x, transport: local}\n",
	  "lab.yaml:2:12: a host name is 1 to 64 letters, digits, '.', '_' or "
	  "'-', not starting with '.'" },
	{ "hosts:\n  - {name: a/b, transport: local}\n",
	  "lab.yaml:2:12: a host name is 1 to 64" },
	{ "hosts:\n  - {name: .hidden, transport: local}\n",
	  "lab.yaml:2:12: a host name is 1 to 64" },
	{ "hosts:\n  - {name: \"lab\\e[2J\", transport: local}\n",
	  "lab.yaml:2:12: a host name is 1 to 64" },
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
		cmocka_unit_test(test_runner),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_missing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
