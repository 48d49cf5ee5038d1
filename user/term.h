/* SPDX-License-Identifier: GPL-2.0 */
/* The terminal top draws on: single keys, a hidden cursor, undone on every way out. */
#ifndef _FABTRACE_TERM_H
#define _FABTRACE_TERM_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <termios.h>

struct term {
	FILE *out;		/* where the screen is drawn */
	int fd;			/* the terminal keys come from */
	bool on;		/* entered: the cursor is hidden */
	bool keys;		/* @fd is in single-key mode; @saved undoes it */
	struct termios saved;
};

/*
 * On top of ft_catch_signals() (SIGINT, SIGTERM): SIGHUP and SIGQUIT set
 * ft_stop too, so the terminal is restored before exiting instead of left
 * without echo; SIGTSTP and SIGCONT are noted for term_wait().  All of them
 * are blocked but in ppoll() with @oldmask, so the handlers only set flags
 * and the work happens in the main loop.  A signal the caller ignores
 * (nohup) stays ignored.
 */
int term_catch_signals(sigset_t *oldmask);

/*
 * Hide the cursor on @out and, when @fd is a terminal, read single keys
 * without echo (Ctrl-C still signals).
 */
void term_enter(struct term *t, FILE *out, int fd);
/* Undo term_enter(): the saved modes and the cursor back.  Idempotent. */
void term_leave(struct term *t);

/*
 * Wait up to @ns for "q" (or "Q") on the terminal, with @mask (from
 * term_catch_signals()) unblocked.  Acts on SIGTSTP (restore the
 * terminal, stop, and after SIGCONT enter it again) and on a SIGCONT after
 * a stop it did not see (SIGSTOP: the modes again).  true: quit (a key, or
 * ft_stop); false: the time is up, or the screen needs drawing again
 * because the process was stopped.
 */
bool term_wait(struct term *t, uint64_t ns, const sigset_t *mask);

#endif /* _FABTRACE_TERM_H */
