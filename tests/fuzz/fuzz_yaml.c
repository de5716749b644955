/*
 * fuzz_yaml.c: doc_parse_yaml on anything.  A document either parses into
 * a tree whose every node has a position, or fails with a message and a
 * line:col position; never a crash, a hang or an alias bomb.
 */
#include "calops.h"

#include "base/doc.h"

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every node of the tree has its position recorded under its pointer. */
static void
walk(const struct doc *d, json_t *v, const char *ptr, int depth)
{
	const char *key;
	json_t *child;
	size_t i;
	char *sub;

	if (depth > DOC_MAX_DEPTH + 1 || json_object_get(d->pos, ptr) == NULL)
		abort();
	/* A node shared through an alias is placed where the alias is; what
	 * is under it only where the anchor is. */
	if (v->refcount > 1)
		return;
	if (json_is_object(v)) {
		json_object_foreach(v, key, child) {
			sub = doc_ptr_key(ptr, key);
			walk(d, child, sub, depth + 1);
			free(sub);
		}
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, child) {
			sub = doc_ptr_index(ptr, i);
			walk(d, child, sub, depth + 1);
			free(sub);
		}
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct doc d;
	struct doc_error e;
	char where[64];

	memset(&e, 0, sizeof e);
	if (doc_parse_yaml(&d, (const char *)data, size, &e) != 0) {
		if (d.root != NULL || e.msg[0] == '\0' || e.where[0] == '\0')
			abort();
		return 0;
	}
	if (d.root == NULL)
		abort();
	/* An empty document has no nodes to place. */
	if (!json_is_null(d.root) || json_object_size(d.pos) != 0)
		walk(&d, d.root, "", 0);
	doc_where(&d, "", where, sizeof where);
	doc_release(&d);
	return 0;
}
