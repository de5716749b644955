/*
 * clip.h: copying a finding, a gate's "why" or a job's command out of the
 * console (y, Y), so that the lead can send it to its owner.
 *
 * The text goes two ways.  To the terminal's clipboard as OSC 52
 * (ESC ] 52 ; c ; base64 BEL), which xterm, kitty, foot, WezTerm, iTerm2
 * and Windows Terminal take.  Inside tmux it is sent as it is, not wrapped
 * for passthrough: tmux 3.3a (Debian 12) drops a DCS passthrough unless
 * allow-passthrough is on (off by default), while with `set -g
 * set-clipboard on` it takes a plain OSC 52 into its paste buffer and hands
 * it to the outer terminal (its default, external, keeps it out).  So a
 * file under the state folder, copied/NAME, is always written too, and its
 * path is what the status bar says.
 */
#ifndef CALOPS_CLIP_H
#define CALOPS_CLIP_H

#include "calops.h"

/* Past this many bytes the terminal is not sent the text (a terminal may
 * refuse or truncate long OSC 52 sequences); the file still has it. */
#define CLIP_OSC52_MAX	65536

/* The OSC 52 sequence that puts text on the clipboard; a new string. */
char	*clip_osc52(const char *text);
/* Whether a terminal of this TERM may be sent OSC 52 (not dumb, not the
 * Linux console, not unset). */
bool	 clip_terminal_takes(const char *term);
/* Write text to the state folder's copied/NAME (made 0600, replaced);
 * 0 and its path in *pathp (the caller's), or -1 with err. */
int	 clip_save(const char *name, const char *text, char **pathp, char *err,
	    size_t errlen);

#endif
