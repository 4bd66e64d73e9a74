#ifndef TOKENDASH_CNCURSES_SHIM_H
#define TOKENDASH_CNCURSES_SHIM_H
// Wide-character ncurses; SwiftPM drops pkg-config's -D_XOPEN_SOURCE, so ask for it here.
#define NCURSES_WIDECHAR 1
#include <ncursesw/curses.h>
#include <locale.h>
#include <wchar.h>

// Macros and globals Swift cannot import or may not touch under Swift 6 concurrency checking.
static inline int td_lines(void) { return LINES; }
static inline int td_cols(void) { return COLS; }
static inline int td_colors(void) { return COLORS; }
static inline int td_color_pairs(void) { return COLOR_PAIRS; }
static inline WINDOW *td_stdscr(void) { return stdscr; }
static inline attr_t td_a_normal(void) { return A_NORMAL; }
static inline attr_t td_a_bold(void) { return A_BOLD; }
static inline attr_t td_a_reverse(void) { return A_REVERSE; }
static inline attr_t td_a_underline(void) { return A_UNDERLINE; }
static inline attr_t td_a_dim(void) { return A_DIM; }
static inline int td_key_code_yes(void) { return KEY_CODE_YES; }

/// Puts one character with attributes and a colour pair at (y, x).
static inline int td_put(int y, int x, wchar_t ch, attr_t attrs, short pair) {
    wchar_t text[2] = { ch, 0 };
    cchar_t cell;
    if (setcchar(&cell, text, attrs, pair, NULL) != OK) return ERR;
    return mvadd_wch(y, x, &cell);
}

/* A run of cells in one style: one attribute change and one write for many cells. */
static inline int td_put_run(int y, int x, const wchar_t *text, int count, attr_t attrs, short pair) {
    attr_set(attrs, pair, NULL);
    return mvaddnwstr(y, x, text, count);
}

/* Left clicks only: press and release of button 1, and a click ncurses assembled. */
static inline void td_enable_clicks(void) {
    mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON1_RELEASED, NULL);
    mouseinterval(0);
}

/* The cell of a left click, or -1 when the event is anything else. */
static inline int td_read_click(int *x, int *y) {
    MEVENT event;
    if (getmouse(&event) != OK) return -1;
    if (!(event.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED))) return -1;
    *x = event.x;
    *y = event.y;
    return 0;
}

static inline void td_setlocale(void) { setlocale(LC_ALL, ""); }

#endif
