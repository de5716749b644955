/*
 * test_lab.c: the lab file (remote/lab.c): the bundled demo lab and the
 * protocol.md §4 example load, relative paths start at the lab file's
 * folder, the runner is a string split on blanks or a list of arguments,
 * a host's keys of v2 (calops, keepalive_s, accept_new, protected) are read
 * with their defaults, and every validation error is worded
 * FILE:LINE:COL: message, pointing at the offending value and naming its
 * key.
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

/* gates: each gate's command, as runner: is written; none for the rest. */
static void
test_gates(void **state)
{
	struct lab lab;
	int g;

	(void)state;
	parse_ok(&lab, "gates:\n"
	    "  G6: [ruby, /opt/calculet/validate.rb, --full-hash, \"a b\"]\n"
	    "  G10: calops release verify . 3\n"
	    "  G0: [sh]\n");
	assert_int_equal(lab.gates[6].argc, 4);
	assert_string_equal(lab.gates[6].argv[0], "ruby");
	assert_string_equal(lab.gates[6].argv[3], "a b");
	assert_null(lab.gates[6].argv[4]);
	assert_string_equal(lab.gates[6].text,
	    "ruby /opt/calculet/validate.rb --full-hash a b");
	assert_int_equal(lab.gates[10].argc, 5);
	assert_string_equal(lab.gates[10].argv[4], "3");
	assert_int_equal(lab.gates[0].argc, 1);
	for (g = 1; g < GATE_COUNT; g++)
		if (g != 6 && g != 10)
			assert_null(lab.gates[g].argv);
	lab_release(&lab);
}

/* The keys of v2: given, and their defaults when not. */
static void
test_v2_keys(void **state)
{
	struct lab lab;
	const struct lab_host *h;

	(void)state;
	setenv("HOME", "/home/op", 1);
	parse_ok(&lab, "hosts:\n"
	    "  - name: lab3\n"
	    "    transport: ssh\n"
	    "    address: lab3-alias\n"
	    "    calops: /opt/calops/bin/calops\n"
	    "    keepalive_s: 1\n"
	    "    accept_new: true\n"
	    "    compression: true\n"
	    "    known_hosts: ~/.ssh/lab_known_hosts\n"
	    "    protected: true\n"
	    "  - name: lab4\n"
	    "    transport: ssh\n"
	    "    address: lab4.example.net\n"
	    "    keepalive_s: 86400\n"
	    "    accept_new: false\n"
	    "    compression: false\n"
	    "    protected: false\n"
	    "  - {name: lab5, transport: ssh, address: lab5}\n"
	    "  - {name: lab6, transport: ssh, address: \"fe80::1%eth0\",\n"
	    "     user: \"DOMAIN\\\\npu op\"}\n");
	h = lab_host(&lab, "lab3");
	assert_non_null(h);
	assert_string_equal(h->calops, "/opt/calops/bin/calops");
	assert_int_equal(h->keepalive_s, 1);
	assert_true(h->accept_new);
	assert_true(h->compression && h->compression_set);
	assert_true(h->protected);
	assert_string_equal(h->known_hosts, "/home/op/.ssh/lab_known_hosts");
	assert_null(h->user);
	assert_int_equal(h->port, 0);
	assert_null(h->identity);
	h = lab_host(&lab, "lab4");
	assert_int_equal(h->keepalive_s, LAB_KEEPALIVE_MAX);
	assert_false(h->accept_new);
	assert_true(!h->compression && h->compression_set);
	assert_false(h->protected);
	/* Nothing given: calops on the host's PATH, the keepalive left to
	 * ~/.ssh/config (0), never a key added, jobs allowed. */
	h = lab_host(&lab, "lab5");
	assert_string_equal(h->calops, LAB_DEFAULT_CALOPS);
	assert_string_equal(h->calops, "calops");
	assert_int_equal(h->keepalive_s, 0);
	assert_false(h->accept_new);
	assert_false(h->compression_set);
	assert_false(h->protected);
	assert_null(h->known_hosts);
	/* ssh takes these: an address with a scope, a user with a blank
	 * and a backslash. */
	h = lab_host(&lab, "lab6");
	assert_string_equal(h->address, "fe80::1%eth0");
	assert_string_equal(h->user, "DOMAIN\\npu op");
	lab_release(&lab);
	assert_int_equal(LAB_KEEPALIVE_DEFAULT, 15);
}

static const struct {
	const char	*text;
	const char	*err;
} bad[] = {
	{ "hosts: []\nrunnr: x\n", "lab.yaml:2:8: unknown key 'runnr'" },
	{ "hosts:\n  - name: a\n    transport: local\n    adress: x\n",
	  "lab.yaml:4:13: unknown key 'adress'" },
	{ "hosts:\n  - name: a\n    transport: telnet\n",
	  "lab.yaml:3:16: 'transport' must be local or ssh, not 'telnet'" },
	{ "hosts:\n  - name: a\n", "lab.yaml:2:5: 'transport' is required" },
	{ "hosts:\n  - {name: a, transport: local}\n"
	  "  - {name: a, transport: local}\n",
	  "lab.yaml:3:12: duplicate host name 'a'" },
	{ "hosts:\n  - {name: a, transport: local}\nworkspaces:\n"
	  "  - {host: b, path: /x}\n",
	  "lab.yaml:4:12: unknown host 'b'" },
	{ "hosts:\n  - {name: a, transport: ssh, address: h, port: 0}\n",
	  "lab.yaml:2:49: 'port' must be an integer from 1 to 65535, not 0" },
	{ "hosts:\n  - {name: a, transport: ssh, address: h, port: x}\n",
	  "lab.yaml:2:49: 'port' must be an integer from 1 to 65535, not a "
	  "string" },
	{ "hosts:\n  - {name: a, transport: ssh, address: h,\n"
	  "     port: 70000}\n",
	  "lab.yaml:3:12: 'port' must be an integer from 1 to 65535, not "
	  "70000" },
	{ "hosts:\n  - {name: a, transport: ssh, address: h, port: -22}\n",
	  "lab.yaml:2:49: 'port' must be an integer from 1 to 65535, not -22" },
	{ "hosts:\n  - {name: a, transport: ssh, address: h, port: 22.0}\n",
	  "lab.yaml:2:49: 'port' must be an integer from 1 to 65535, not a "
	  "decimal number" },
	{ "hosts:\n  - {name: a, transport: ssh, address: h, port: \"22\"}\n",
	  "lab.yaml:2:49: 'port' must be an integer from 1 to 65535, not a "
	  "string" },
	{ "hosts:\n  - {name: a, transport: local, chips: 3}\n",
	  "lab.yaml:2:40: 'chips' must be a list of chip numbers, not an "
	  "integer" },
	{ "hosts:\n  - {name: a, transport: local, chips: [0, -1]}\n",
	  "lab.yaml:2:44: 'chips': a chip must be an integer from 0 to 4095" },
	{ "hosts:\n  - {name: a, transport: local, chips: [0, x]}\n",
	  "lab.yaml:2:44: 'chips': a chip must be an integer from 0 to 4095" },
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
	{ "gates: [a]\n", "lab.yaml:1:8: 'gates' must map gate ids (G0 to G10) "
	  "to commands, not be a list" },
	{ "gates:\n  G11: x\n", "lab.yaml:2:8: 'G11' is not a gate: the gates "
	  "are G0 to G10" },
	{ "gates:\n  G7: x\n", "lab.yaml:2:7: G7's job is the runner's" },
	{ "gates:\n  G9: x\n", "lab.yaml:2:7: G9's job is the runner's (the "
	  "soak)" },
	{ "gates:\n  G6: []\n", "lab.yaml:2:7: G6's command must name a "
	  "program" },
	{ "gates:\n  G6: [ruby, 3]\n", "lab.yaml:2:14: an argument of G6's "
	  "command must be a string, not an integer" },
	{ "gates:\n  G6: ruby \"a b\"\n", "lab.yaml:2:7: G6's command is split "
	  "on blanks with no shell quoting" },
	{ "gates:\n  G6: {a: b}\n", "lab.yaml:2:7: G6's command must be a "
	  "string or a list of strings, not a mapping" },
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
	  "lab.yaml:2:12: 'name' must be 1 to 64 letters, digits, '.', '_' or "
	  "'-', not starting with '.'" },
	{ "hosts:\n  - {name: a/b, transport: local}\n",
	  "lab.yaml:2:12: 'name' must be 1 to 64" },
	{ "hosts:\n  - {name: .hidden, transport: local}\n",
	  "lab.yaml:2:12: 'name' must be 1 to 64" },
	{ "hosts:\n  - {name: \"lab\\e[2J\", transport: local}\n",
	  "lab.yaml:2:12: 'name' must be 1 to 64" },
	/* Every key of a host entry: a typo, a wrong type, a value out of
	 * range, each at its value, naming the key. */
	{ "hosts:\n  - name: a\n    transport: ssh\n    address: h\n"
	  "    keepalive: 5\n",
	  "lab.yaml:5:16: unknown key 'keepalive'" },
	{ "hosts:\n  - name: a\n    transport: ssh\n    address: h\n"
	  "    acceptnew: true\n",
	  "lab.yaml:5:16: unknown key 'acceptnew'" },
	{ "hosts:\n  - name: a\n    transport: ssh\n    address: h\n"
	  "    keepalive_s: 0\n",
	  "lab.yaml:5:18: 'keepalive_s' must be an integer from 1 to 86400, "
	  "not 0" },
	{ "hosts:\n  - name: a\n    transport: ssh\n    address: h\n"
	  "    keepalive_s: 86401\n",
	  "lab.yaml:5:18: 'keepalive_s' must be an integer from 1 to 86400, "
	  "not 86401" },
	{ "hosts:\n  - name: a\n    transport: ssh\n    address: h\n"
	  "    keepalive_s: 1.5\n",
	  "lab.yaml:5:18: 'keepalive_s' must be an integer from 1 to 86400, "
	  "not a decimal number" },
	{ "hosts:\n  - name: a\n    transport: ssh\n    address: h\n"
	  "    keepalive_s: 15s\n",
	  "lab.yaml:5:18: 'keepalive_s' must be an integer from 1 to 86400, "
	  "not a string" },
	{ "hosts:\n  - name: a\n    transport: ssh\n    address: h\n"
	  "    keepalive_s:\n",
	  "lab.yaml:5:17: 'keepalive_s' must be an integer from 1 to 86400, "
	  "not empty" },
	{ "hosts:\n  - name: a\n    transport: ssh\n    address: h\n"
	  "    accept_new: yes\n",
	  "lab.yaml:5:17: 'accept_new' must be true or false, not a string" },
	{ "hosts:\n  - name: a\n    transport: ssh\n    address: h\n"
	  "    accept_new: 1\n",
	  "lab.yaml:5:17: 'accept_new' must be true or false, not an "
	  "integer" },
	{ "hosts:\n  - name: a\n    transport: ssh\n    address: h\n"
	  "    compression: yes\n",
	  "lab.yaml:5:18: 'compression' must be true or false, not a string" },
	{ "hosts:\n  - name: a\n    transport: ssh\n    address: a\n"
	  "    protected: \"true\"\n",
	  "lab.yaml:5:16: 'protected' must be true or false, not a string" },
	{ "hosts:\n  - name: a\n    transport: ssh\n    address: h\n"
	  "    protected: [true]\n",
	  "lab.yaml:5:16: 'protected' must be true or false, not a list" },
	{ "hosts:\n  - name: a\n    transport: ssh\n    address: h\n"
	  "    calops: \"\"\n",
	  "lab.yaml:5:13: 'calops' must be a non-empty string" },
	{ "hosts:\n  - name: a\n    transport: ssh\n    address: h\n"
	  "    calops: [calops, --x]\n",
	  "lab.yaml:5:13: 'calops' must be a string, not a list" },
	{ "hosts:\n  - name: a\n    transport: ssh\n    address: h\n"
	  "    known_hosts: 3\n",
	  "lab.yaml:5:18: 'known_hosts' must be a string, not an integer" },
	{ "hosts:\n  - name: a\n    transport: ssh\n    address: h\n"
	  "    identity: {file: x}\n",
	  "lab.yaml:5:15: 'identity' must be a string, not a mapping" },
	{ "hosts:\n  - name: a\n    transport: ssh\n    address: h\n"
	  "    user: 1000\n",
	  "lab.yaml:5:11: 'user' must be a string, not an integer" },
	{ "hosts:\n  - name: a\n    transport: ssh\n    address:\n",
	  "lab.yaml:4:13: 'address' must be a string, not empty" },
	{ "hosts:\n  - name: a\n    transport: ssh\n    address: true\n",
	  "lab.yaml:4:14: 'address' must be a string, not a boolean" },
	/* What ssh refuses on its command line, the lab refuses. */
	{ "hosts:\n  - name: a\n    transport: ssh\n"
	  "    address: \"lab3;touch x\"\n",
	  "lab.yaml:4:14: 'address' cannot start with '-' or hold blanks, "
	  "control characters or any of '`\"$\\;&<>|(){} (ssh refuses "
	  "them)" },
	{ "hosts:\n  - name: a\n    transport: ssh\n"
	  "    address: -oProxyCommand=x\n",
	  "lab.yaml:4:14: 'address' cannot start with '-'" },
	{ "hosts:\n  - name: a\n    transport: ssh\n"
	  "    address: \"lab 3\"\n",
	  "lab.yaml:4:14: 'address' cannot start with '-'" },
	{ "hosts:\n  - name: a\n    transport: ssh\n"
	  "    address: \"lab3\\e[2J\"\n",
	  "lab.yaml:4:14: 'address' cannot start with '-'" },
	{ "hosts:\n  - name: a\n    transport: ssh\n    address: h\n"
	  "    user: \"npu$(id)\"\n",
	  "lab.yaml:5:11: 'user' cannot start with '-', hold any of "
	  "'`\";&<>|(){}, a '-' after a blank or end in '\\' (ssh refuses "
	  "them)" },
	{ "hosts:\n  - name: a\n    transport: ssh\n    address: h\n"
	  "    user: \"npu -oX\"\n",
	  "lab.yaml:5:11: 'user' cannot start with '-'" },
	{ "hosts:\n  - name: a\n    transport: ssh\n    address: h\n"
	  "    user: \"npu\\\\\"\n",
	  "lab.yaml:5:11: 'user' cannot start with '-'" },
	{ "hosts:\n  - name: 7\n    transport: ssh\n",
	  "lab.yaml:2:11: 'name' must be a string, not an integer" },
	{ "hosts:\n  - name: a\n    transport: [ssh]\n",
	  "lab.yaml:3:16: 'transport' must be a string, not a list" },
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

/* A workspace found by host and path: on a local host however spelt, on
 * an ssh host only as written; how many match when the caller names
 * neither or one. */
static void
test_find_workspace(void **state)
{
	char dir[] = "/tmp/calops-labws.XXXXXX", err[512], *text, *spelt;
	char *link;
	const struct lab_workspace *w;
	struct lab lab;
	size_t n;

	(void)state;
	assert_non_null(mkdtemp(dir));
	link = xasprintf("%s-link", dir);
	assert_int_equal(symlink(dir, link), 0);
	text = xasprintf("hosts:\n  - {name: local, transport: local}\n"
	    "  - {name: far, transport: ssh, address: far.example}\n"
	    "workspaces:\n  - {host: local, path: %s}\n"
	    "  - {host: far, path: /srv/a}\n  - {host: far, path: /srv/b}\n"
	    "  - {host: local, path: /srv/b}\n  - {host: local, path: %s}\n",
	    dir, link);
	assert_int_equal(lab_parse(&lab, text, strlen(text), "lab.yaml", err,
	    sizeof err), 0);
	spelt = xasprintf("%s/./", dir);
	/* The folder is listed twice, through a link: another spelling
	 * names both, and each as written names its own. */
	w = lab_find_workspace(&lab, "local", spelt, &n);
	assert_non_null(w);
	assert_string_equal(w->path, dir);
	assert_int_equal(n, 2);
	w = lab_find_workspace(&lab, "local", link, &n);
	assert_string_equal(w->path, link);
	assert_int_equal(n, 1);
	w = lab_find_workspace(&lab, NULL, dir, &n);
	assert_string_equal(w->path, dir);
	assert_int_equal(n, 1);
	/* Not a local host: the path as written only. */
	assert_null(lab_find_workspace(&lab, "far", "/srv/a/", &n));
	assert_int_equal(n, 0);
	w = lab_find_workspace(&lab, "far", NULL, &n);
	assert_string_equal(w->path, "/srv/a");
	assert_int_equal(n, 2);
	w = lab_find_workspace(&lab, NULL, "/srv/b", &n);
	assert_string_equal(w->host, "far");
	assert_int_equal(n, 2);
	assert_null(lab_find_workspace(&lab, "nowhere", NULL, &n));
	assert_int_equal(n, 0);
	lab_release(&lab);
	free(spelt);
	free(text);
	unlink(link);
	free(link);
	rmdir(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_example),
		cmocka_unit_test(test_demo),
		cmocka_unit_test(test_runner),
		cmocka_unit_test(test_gates),
		cmocka_unit_test(test_v2_keys),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_find_workspace),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
