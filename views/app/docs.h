/*
 * docs.h: the parts of the documentation that are lists of what the console
 * has -- its screens, the keys of each, the commands after ':' -- written
 * from the tables the console runs on (the view registry, the key tables of
 * action.h and of each screen, prompt_commands[]), as the help screen is
 * drawn from them, so that --help, calops(1) and the help screen say the
 * same.  share/gendocs.sh puts docs_man()'s part into share/man/calops.1
 * (`calops --gen-docs man`), and the docs test checks that it is still what
 * the program prints.
 */
#ifndef CALOPS_DOCS_H
#define CALOPS_DOCS_H

#include "calops.h"

#include "base/buf.h"

/* The screens and the ':' commands, for --help: plain text, 80 columns. */
void	docs_usage(struct buf *b);

/* The generated part of calops(1), in roff: every screen with how it is
 * reached and its own keys, the keys of every screen, the ':' commands. */
void	docs_man(struct buf *b);

#endif
