/*
 * sim_onnxpb.h: what onnx-check reads of an ONNX model: onnx.proto3's
 * ModelProto in protobuf's wire format, of which only the IR version, the
 * opsets imported, the graph's nodes (operator type and domain) and the
 * initializers kept as external data (where, from which byte, how many)
 * are decoded; every other field is skipped by its wire type.  A file that
 * is not well-formed protobuf, or a field of these with the wrong wire
 * type, is refused with the byte offset of what is wrong.
 */
#ifndef CALRT_SIM_ONNXPB_H
#define CALRT_SIM_ONNXPB_H

#include "calops.h"

/* The most distinct operator types a model may use: a hostile file of a
 * million distinct names would make the count quadratic. */
#define ONNX_OPS_MAX	4096
#define ONNX_OPS_SLOTS	(2 * ONNX_OPS_MAX)	/* its lookup table */
/* A model imports a few opsets and keeps at most some thousands of
 * tensors outside; a file of millions is refused, not stored. */
#define ONNX_OPSETS_MAX	256
#define ONNX_EXTERN_MAX	(1u << 20)

struct onnx_opset {
	char		*domain;	/* "" for the default, ai.onnx */
	int64_t		 version;
};

/* An operator type the graph uses, in the order it first appears. */
struct onnx_op {
	char		*op_type;
	char		*domain;	/* "" for the default */
	size_t		 count;
	size_t		 first;		/* the node it first appears in */
};

/* An initializer whose data is in another file. */
struct onnx_extern {
	char		*tensor;	/* its name ("" when it has none) */
	char		*location;	/* NULL: the model does not say */
	int64_t		 offset;	/* 0 when not given */
	int64_t		 length;	/* -1: to the end of the file */
};

struct onnx_model {
	int64_t			 ir_version;	/* 0: not given */
	bool			 has_graph;
	struct onnx_opset	*opsets;
	size_t			 nopsets;
	struct onnx_op		*ops;
	size_t			 nops;
	size_t			 nnodes;
	struct onnx_extern	*ext;
	size_t			 next;
	size_t			 ninit;	/* initializers, external or not */
	/* the reader's own: room in the arrays, and ops by name (index + 1,
	 * 0 for none) */
	size_t			 opsets_cap, ops_cap, ext_cap;
	size_t			*op_slots;
};

/* Decode n bytes of a model into *m (zeroed first); 0, or -1 with "byte
 * N: what is wrong" in err.  onnx_release either way. */
int	 onnx_parse(const unsigned char *p, size_t n, struct onnx_model *m,
	    char *err, size_t len);
void	 onnx_release(struct onnx_model *m);
/* How many bytes of s, at most max, end on a whole UTF-8 character: for
 * "%.*s", so that a message never cuts one in two. */
int	 onnx_clip(const char *s, int max);
/* The version m imports for domain ("" or "ai.onnx": the default), or
 * -1 when it imports none. */
int64_t	 onnx_opset(const struct onnx_model *m, const char *domain);

#endif
