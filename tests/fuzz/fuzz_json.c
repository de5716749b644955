/*
 * fuzz_json.c: doc_parse_json on anything.  A document either parses or
 * fails with a message and a line:col position; never a crash or a hang.
 */
#include "calops.h"

#include "base/doc.h"

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct doc d;
	struct doc_error e;
	char where[64];

	memset(&e, 0, sizeof e);
	if (doc_parse_json(&d, (const char *)data, size, &e) != 0) {
		if (d.root != NULL || e.msg[0] == '\0' || e.where[0] == '\0')
			abort();
		return 0;
	}
	if (!json_is_object(d.root) && !json_is_array(d.root))
		abort();
	doc_where(&d, "/0", where, sizeof where);
	doc_release(&d);
	return 0;
}
