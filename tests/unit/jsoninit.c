/*
 * jsoninit.c: linked into every test program built on calops' libraries, so
 * that jansson allocates through xmalloc() there as in the programs, whose
 * main() calls xmalloc_json_init() first (src/main.c): out of memory is
 * fatal(), never a field dropped by an unchecked json_object_set_new().
 * A constructor, so that no test's main() has to remember it.
 */
#include "calops.h"

static void __attribute__((constructor))
jsoninit(void)
{
	xmalloc_json_init();
}
