/*
 * jsonptr.h: the line of a JSON text at which a JSON pointer (RFC 6901:
 * "/findings/1", "/a~1b" for the member "a/b") names a value, so that a
 * finding at "validation.json#/findings/1" opens at its line in an editor
 * or the pager.  A scanner over the text, with no tree built: an artifact
 * of any size costs one pass and no allocation.
 */
#ifndef CALOPS_JSONPTR_H
#define CALOPS_JSONPTR_H

#include "calops.h"

/* The 1-based line where the value pointer names begins in the len bytes
 * at json ("" names the whole text); 0 when it names nothing there, or the
 * text stops being JSON before it is found. */
long	jsonptr_line(const char *json, size_t len, const char *pointer);

#endif
