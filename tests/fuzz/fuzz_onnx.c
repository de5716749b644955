/*
 * fuzz_onnx.c: onnx_parse (the simulator's ONNX reader, share/sim) on
 * anything.  A model either parses, with every node counted once under an
 * operator type that is a name, or fails with "byte N: …" where N is
 * inside the input.
 */
#include "calops.h"

#include "sim_onnxpb.h"

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct onnx_model m;
	char err[512] = "", *end;
	unsigned long long at;
	size_t i, nodes = 0;

	if (onnx_parse(data, size, &m, err, sizeof err) != 0) {
		if (strncmp(err, "byte ", 5) != 0)
			abort();
		at = strtoull(err + 5, &end, 10);
		if (end == err + 5 || *end != ':' || (at >= size && size > 0))
			abort();
		onnx_release(&m);
		return 0;
	}
	for (i = 0; i < m.nops; i++) {
		if (m.ops[i].count == 0 || m.ops[i].op_type[0] == '\0' ||
		    strspn(m.ops[i].op_type, "abcdefghijklmnopqrstuvwxyz"
		    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") !=
		    strlen(m.ops[i].op_type) || m.ops[i].first >= m.nnodes ||
		    strcmp(m.ops[i].domain, "ai.onnx") == 0)
			abort();
		nodes += m.ops[i].count;
	}
	if (nodes != m.nnodes || m.nops > ONNX_OPS_MAX || m.next > m.ninit)
		abort();
	for (i = 0; i < m.next; i++)
		if (m.ext[i].tensor == NULL || m.ext[i].offset < 0 ||
		    m.ext[i].length < -1)
			abort();
	onnx_release(&m);
	return 0;
}
