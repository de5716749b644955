/*
 * doc.h: YAML and JSON documents read into one data model, a jansson tree, so
 * that gate code queries both the same way.
 *
 * YAML is read with libyaml into the same tree: plain scalars are typed by
 * the YAML 1.2 core schema (null, true/false, integers, floats; anything
 * else, dates included, is a string), quoted scalars are strings.  Anchors
 * and aliases are supported with a budget on the nodes they expand to, so an
 * alias bomb is an error rather than a hang; nesting deeper than
 * DOC_MAX_DEPTH, duplicate keys, non-scalar keys, integers that overflow and
 * more than one document are errors too.  Every node's position is kept, so a
 * finding can say `line:col` for YAML; JSON findings carry a JSON pointer.
 *
 * A struct doc owns its tree (doc_release drops it).  Nodes handed out by
 * the query helpers are borrowed from it.
 */
#ifndef CALOPS_DOC_H
#define CALOPS_DOC_H

#include "calops.h"

#include <jansson.h>

#define DOC_MAX_DEPTH	64
/* a whole-file document, not a stream */
#define DOC_MAX_BYTES	(64u << 20)
#define DOC_ALIAS_BUDGET 100000	/* nodes aliases may add in one document */
/*
 * What a document's tree may cost in memory, so that the peak while reading
 * a file stays within 16 times its size and 256 MiB (workspace.md, "How
 * files are read"): DOC_TREE_FACTOR times its bytes, at most DOC_TREE_MAX
 * less twice its bytes (the text read, and libyaml's or jansson's copy), at
 * least DOC_TREE_MIN.  A node is costed as jansson and the position map
 * make it, measured: a YAML node ~180 bytes with its position, a mapping
 * member ~160 more; a JSON value ~64, a member ~96 more.  Past the budget
 * the document is refused while it is read (YAML: nodes counted as they
 * are made; JSON: counted in one pass over the text before it is parsed).
 */
#define DOC_TREE_FACTOR		12
#define DOC_TREE_MAX		(240u << 20)
#define DOC_TREE_MIN		(16u << 20)
#define DOC_YAML_NODE_COST	200
#define DOC_YAML_MEMBER_COST	240
#define DOC_JSON_NODE_COST	64
#define DOC_JSON_MEMBER_COST	96
/* The tree budget of a document of len bytes. */
size_t	 doc_tree_budget(size_t len);

enum doc_kind {
	DOC_JSON,
	DOC_YAML,
};

struct doc {
	enum doc_kind	 kind;
	json_t		*root;
	json_t		*pos;	/* YAML: JSON pointer -> (line << 32 | col) */
};

/* What went wrong parsing, and where ("line:col", 1-based). */
struct doc_error {
	char	msg[256];
	char	where[32];
};

int	 doc_parse_json(struct doc *d, const char *data, size_t len,
	    struct doc_error *err);
int	 doc_parse_yaml(struct doc *d, const char *data, size_t len,
	    struct doc_error *err);
void	 doc_release(struct doc *d);

/*
 * Where a node is, for a finding: "line:col" when the document knows the
 * position of `pointer` (YAML), else the pointer itself ("" for the root is
 * given as "/").  Returns buf.
 */
const char *doc_where(const struct doc *d, const char *pointer, char *buf,
	    size_t len);

/* Append one reference token to a JSON pointer (escaping ~ and /); the
 * result is a new string owned by the caller. */
char	*doc_ptr_key(const char *base, const char *key);
char	*doc_ptr_index(const char *base, size_t index);

#endif
