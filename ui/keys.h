/* keys: the one key table. It drives dispatch, the help screen, the
 * status line's hints and docs/keys.md's key list (memtop --list-keys
 * prints it as Markdown), so a key is bound, documented, hinted and
 * listed in one place. Read by the viewer, help_overlay, status_line and
 * main; knows no pane. */
#ifndef MEMTOP_KEYS_H
#define MEMTOP_KEYS_H

#include <stddef.h>
#include <stdio.h>

/* What a key asks for. Movement requests mean what the focused pane makes
 * of them (a list moves its selection, the chart its cursor). */
enum request {
    REQUEST_NONE = 0,
    /* anywhere */
    REQUEST_QUIT,
    REQUEST_HELP,
    REQUEST_CANCEL,          /* Esc: close a prompt, filter or overlay */
    REQUEST_REDRAW,          /* Ctrl-L */
    REQUEST_FOCUS_NEXT,      /* Tab */
    REQUEST_FOCUS_PREVIOUS,  /* Shift-Tab */
    REQUEST_ALLOCATOR_NEXT,  /* ] */
    REQUEST_ALLOCATOR_PREVIOUS, /* [ */
    REQUEST_EXPORT,          /* e: export the focused pane to CSV */
    /* movement, in the focused pane */
    REQUEST_MOVE_UP,
    REQUEST_MOVE_DOWN,
    REQUEST_MOVE_LEFT,
    REQUEST_MOVE_RIGHT,
    REQUEST_PAGE_UP,
    REQUEST_PAGE_DOWN,
    REQUEST_FIRST,           /* Home, g */
    REQUEST_LAST,            /* End, G */
    REQUEST_ENTER,
    /* chart */
    REQUEST_ZOOM_IN,         /* + = */
    REQUEST_ZOOM_OUT,        /* - */
    REQUEST_ZOOM_RESET,      /* 0 */
    REQUEST_JUMP_PEAK,       /* p */
    REQUEST_TOGGLE_FREE,     /* f */
    REQUEST_TOGGLE_RESERVED, /* v */
    REQUEST_TOGGLE_FRAGMENTATION, /* F */
    /* table */
    REQUEST_SORT_NEXT,       /* s > */
    REQUEST_SORT_REVERSE,    /* r */
    REQUEST_FILTER,          /* / */
    REQUEST_MATCH_NEXT,      /* n */
    REQUEST_MATCH_PREVIOUS,  /* N */
    /* runs and hosts */
    REQUEST_POD_OVERVIEW,    /* P: every host x allocator of the run */
    REQUEST_COMPARE_HOST_NEXT,     /* }: two runs compared, the next host */
    REQUEST_COMPARE_HOST_PREVIOUS, /* { */
    /* chart (issue 15) */
    REQUEST_TOGGLE_AUTO_AXIS,     /* a: the y-axis from the data's lowest, not 0 */
    REQUEST_TOGGLE_CAPACITY_AXIS, /* c: the y-axis up to the capacity */
    REQUEST_EVENT_PREVIOUS,       /* , : the cursor to the previous snapshot */
    REQUEST_EVENT_NEXT,           /* . : the cursor to the next snapshot */
    /* HLO modules */
    REQUEST_DEVICE_NEXT,          /* d: show the next device's modules only */
    /* anywhere */
    REQUEST_ZOOM_PANE,            /* z: the focused pane over the whole screen, and back */
    /* table (issue 15) */
    REQUEST_SORT_PREVIOUS,        /* < : sort by the column to the left */
    REQUEST_GROUP_NEXT,           /* t : group rows by the next key (htop's tree) */
    REQUEST_GROUP_UP,             /* Backspace: out of the open group */
    REQUEST_MIN_SIZE_NEXT,        /* H : hide rows under the next size */
    /* time travel (issue 13) */
    REQUEST_LIVE_TOGGLE,          /* L: the table at the peak, or live at the cursor */
    REQUEST_MARK,                 /* m: a mark at the cursor (what grew since), or none */
    REQUEST_STEP_BOUNDARIES,      /* b: the chart's x-axis marks where steps start */
    /* the out-of-memory post-mortem (issue 24) */
    REQUEST_OOM_NEXT,             /* o: to the OOM (the last first, then the next) */
    REQUEST_OOM_PREVIOUS,         /* O: to the previous OOM */
    REQUEST_GO_TO,                /* g: the cursor to a time, a step, the peak, the OOM */
    REQUEST_RELOAD,               /* R, F5: the log directory and the open host read again */
    /* who holds the memory (issue 22) */
    REQUEST_XPROF_TABLE,          /* X: the live set at the peak, or XProf's own table */
    REQUEST_COUNT
};

/* Who acts on a request: the viewer itself, whichever pane has the focus,
 * or one pane (its requests reach it even when another pane has focus). */
enum key_scope {
    KEY_SCOPE_GLOBAL,
    KEY_SCOPE_PANE,  /* movement and Enter, in the focused pane */
    KEY_SCOPE_HOSTS,
    KEY_SCOPE_ALLOCATORS,
    KEY_SCOPE_CHART,
    KEY_SCOPE_TABLE,
    KEY_SCOPE_HLO,
    KEY_SCOPE_RUNS,
    KEY_SCOPE_POD,
    KEY_SCOPE_COMPARE, /* --compare's op table */
    KEY_SCOPE_STEPS,
    KEY_SCOPE_COUNT
};

#define KEY_BINDING_CODES 4

struct key_binding {
    int codes[KEY_BINDING_CODES]; /* curses key codes; 0 ends the list */
    const char *label;            /* "Up k", as help and docs/keys.md show it */
    enum request request;
    enum key_scope scope;
    const char *help;
    /* On the status line while a pane of this scope has the focus, the
     * key first ("+/- zoom"); NULL: in help only, or another row's hint
     * covers it. */
    const char *hint;
};

/* Key codes memtop reads that curses has no name for. */
#define KEY_CODE_ESCAPE 27
#define KEY_CODE_CONTROL(letter) ((letter) & 0x1f)

/* The table, in the order help shows it. */
const struct key_binding *keys_table(size_t *count);
/* The request a key code asks for; REQUEST_NONE when it is unbound. */
enum request keys_request_for(int code);
/* The scope of a request (KEY_SCOPE_GLOBAL for REQUEST_NONE). */
enum key_scope keys_scope_of(enum request request);
/* "Anywhere", "Focused pane", ... as headings. */
const char *keys_scope_name(enum key_scope scope);
/* The status line's hints, from the key table: the hints of the rows in
 * each of `scopes`, in table order, then those of the requests in
 * `globals` (the first row of each that has a hint), "  " apart. A hint
 * for REQUEST_FOCUS_NEXT is replaced by tab_hint when that is not NULL
 * ("Tab HLO modules"). */
void keys_hint_line(const enum key_scope *scopes, size_t scope_count,
                    const enum request *globals, size_t global_count, const char *tab_hint,
                    char *line, size_t size);

/* The key list as a Markdown table, for docs/keys.md (--list-keys). */
void keys_print_markdown(FILE *out);
/* The same as man page text (roff: .SS per scope, .TP per key), for
 * memtop.1's KEYS section (--list-keys=man). */
void keys_print_man(FILE *out);

#endif
