/*
 * text.h: THE sanitiser.  Every string that came from a file or a host goes
 * through text_sanitize() before it reaches a screen, a log or a terminal.
 *
 * It decodes UTF-8 and makes visible, instead of passing through: C0 and C1
 * controls and DEL (as ^X caret notation or <U+0085>), bytes that are not
 * valid UTF-8 (as \xHH), and the bidirectional overrides and isolates
 * (U+202A..U+202E, U+2066..U+2069, as <U+202E>) that reorder what a reader
 * sees.  Tabs become spaces to the next multiple of eight.  With max_width
 * non-zero the result is clipped to that many terminal columns (wcwidth in
 * the current locale), ending in "…" (or "~" outside UTF-8 locales).
 */
#ifndef CALOPS_TEXT_H
#define CALOPS_TEXT_H

#include "calops.h"

#include <jansson.h>

/* Clip with "~" even in a UTF-8 locale (the console's --ascii). */
void	 text_ascii_ellipsis(bool on);

/* Returns a new string owned by the caller. */
char	*text_sanitize(const char *s, size_t len, size_t max_width);
char	*text_sanitize_str(const char *s);
/*
 * The same for a document written to a file (the decision record): one
 * line of text whatever the locale, so that the same bytes in give the
 * same bytes out.  Controls (line breaks included), DEL, the hidden code
 * points and bytes that are not UTF-8 take the forms above; a tab is one
 * blank; every other code point passes as it is, with no width judged.
 */
char	*text_sanitize_doc(const char *s, size_t len);
/*
 * Put every byte written to stderr through the sanitiser from now on: the
 * messages calops prints quote what an operator or a file gave (a path, a
 * job id, a host name, an option value, getopt's own complaints), so they
 * are made safe here, once, rather than at each call.  Tabs pass, and
 * valid UTF-8 whatever the locale; C0 and C1 controls, DEL, the
 * bidirectional controls and bytes that are not UTF-8 are shown as
 * text_sanitize() shows them ("^[]52;…^G").  Each write (one stdio call:
 * stderr is unbuffered) is one message, and a line feed inside it is shown
 * as ^J, except in the usage texts, which begin "usage: ": nothing quoted
 * can forge a line of its own.  Writes go to file descriptor 2, whatever it
 * is then.  0, or -1 with stderr as it was.
 */
int	 text_guard_stderr(void);
/*
 * The len bytes at s made valid UTF-8: kept as they are, except that bytes
 * that are not UTF-8, and NUL, become the text \xHH.  Byte for byte the
 * same in every locale (a job's events are compared so).  New string.
 */
char	*text_utf8_escape(const char *s, size_t len);
/* A JSON string of s (JSON null for NULL), through text_utf8_escape() when
 * it is not UTF-8, so that a value from a file or a host is kept, not
 * lost.  New reference. */
json_t	*text_json(const char *s);
/*
 * JSON text (len bytes) with DEL, the C1 controls, the bidirectional
 * controls, U+FEFF, U+2028 and U+2029 written as \uXXXX escapes, so that a
 * terminal that shows the text raw (`calops tail`, `cat events.jsonl`) sees
 * none of them.  The same JSON value.  NULL when there was nothing to
 * escape, else a new string, its length in *outlen.
 */
char	*text_json_harden(const char *json, size_t len, size_t *outlen);
/*
 * Whether the len bytes at s are one JSON object or array, with nothing
 * but blanks around it, that jansson would load (json_loadb, no flags),
 * checked without allocating anything: several times faster, for a reader
 * of millions of lines.  Only plain JSON is judged so: strings of valid
 * UTF-8 with no raw controls, \u escapes outside the surrogates and not
 * \u0000, at most 18 digits before any point, no exponent, 64 levels
 * deep.  false: not valid, or not so plain -- let jansson decide.
 */
bool	 text_json_plain(const char *s, size_t len);
/* Print o to f as json_dumpf() would (flags), hardened, with a final LF;
 * -1 when it cannot be encoded. */
int	 text_json_print(FILE *f, const json_t *o, size_t flags);

/* Decode one UTF-8 code point at s (len bytes left); returns its length or
 * 0 when the bytes there are not valid UTF-8 (overlong, surrogate,
 * > U+10FFFF). */
size_t	 text_utf8_decode(const unsigned char *s, size_t len, uint32_t *cp);
/* True for a code point that must never reach a terminal raw: C0 and C1
 * controls, DEL, the bidi controls (U+202A..U+202E, U+2066..U+2069,
 * U+200E, U+200F, U+061C), U+FEFF, U+2028 and U+2029. */
bool	 text_cp_unsafe(uint32_t cp);
/* True when the len bytes at s are valid UTF-8 with no NUL byte. */
bool	 text_utf8_valid(const char *s, size_t len);
/* Whether s may be kept as one line of text that is signed or logged as it
 * is (an audit record's actor or reason): valid UTF-8 with no code point
 * text_cp_unsafe() names, line breaks and tabs included.  When not, why
 * says what and at which byte ("U+202E, a bidirectional control, at byte
 * 4"). */
bool	 text_plain_line(const char *s, char *why, size_t whylen);
/* 3 when s starts with a UTF-8 byte order mark, else 0: every text
 * artifact is read past one (workspace.md §2). */
size_t	 text_bom_len(const char *s, size_t len);
/* The edit distance of a and b, for "did you mean": names (a command, a
 * config option) of up to 63 bytes; 9 for longer ones or past 9. */
size_t	 text_distance(const char *a, const char *b);

#endif
