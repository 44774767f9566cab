/* viewer: the state of one viewer session, shared by the panes, and the
 * calls panes make on the viewer (status line, prompts, overlays).
 *
 * The viewer owns no profile data: it points into the host list's
 * profiles, which stay immutable. Each pane keeps its own state struct
 * (declared in its header) inside struct viewer. */
#ifndef MEMTOP_VIEWER_H
#define MEMTOP_VIEWER_H

#include <stdbool.h>
#include <stddef.h>

#include "model/host_list.h"
#include "model/profile.h"
#include "ui/breakdown_pane.h"
#include "ui/chart_pane.h"
#include "ui/draw.h"
#include "ui/export_prompt.h"
#include "ui/hlo_pane.h"
#include "ui/keys.h"
#include "ui/layout.h"
#include "ui/list_cursor.h"
#include "ui/query.h"
#include "ui/table_pane.h"
#include "ui/time_window.h"
#include "ui/ui.h"

enum pane_kind {
    PANE_HOSTS,      /* only when there is more than one host */
    PANE_ALLOCATORS,
    PANE_SUMMARY,
    PANE_CHART,
    PANE_TABLE,
    PANE_HLO,        /* only when the profile has HLO modules */
    PANE_COUNT
};

enum overlay_kind {
    OVERLAY_NONE,
    OVERLAY_HELP,
    OVERLAY_ROW_DETAIL, /* drawn by the table pane */
};

struct viewer;
typedef void (*prompt_callback)(struct viewer *viewer, const char *text);

struct prompt {
    bool active;
    char label[32];
    char text[256];
    size_t length;
    prompt_callback on_change; /* after every edit (live filters) */
    prompt_callback on_accept; /* Enter */
    prompt_callback on_cancel; /* Esc */
};

struct viewer {
    struct host_list *hosts;
    struct ui_options options;
    struct ui_style style;

    size_t host_index;
    const struct profile *profile;     /* NULL when the host failed to load */
    size_t allocator_index;
    const struct allocator *allocator; /* NULL when the profile has none */

    /* The time the chart shows: shared, so that other panes ask the
     * viewer to move it (viewer_jump_to_time, viewer_zoom_to). */
    struct time_window time;
    /* The filter and sort of the allocations, and the rows they leave. */
    struct query query;

    enum pane_kind focus;
    enum overlay_kind overlay;
    struct list_cursor host_list;
    struct list_cursor allocator_list;
    struct chart_state chart;
    struct table_state table;
    struct hlo_state hlo;
    struct breakdown_state breakdown;

    struct prompt prompt;
    struct export_prompt_state export_prompt;
    char status[512];
    bool status_is_error;
    bool quit;

    /* The shell's own state. */
    struct layout layout;       /* of the last frame: mouse clicks hit it */
    enum pane_kind table_tab;   /* PANE_TABLE or PANE_HLO when they share a place */
    struct list_cursor help;  /* the help overlay's scroll */
    bool redraw_all;            /* Ctrl-L: repaint every cell */
    bool terminal_ready;        /* curses is running: loads may show progress */
};

/* Starts a session; viewer_select_host() then opens the first host. */
void viewer_init(struct viewer *viewer, struct host_list *hosts, const struct ui_options *options,
                 const struct ui_style *style);
void viewer_free(struct viewer *viewer);

/* Opens host `index` (loading it on first use); the panes start over. */
void viewer_select_host(struct viewer *viewer, size_t index);
/* Shows allocator `index` of the current profile; chart and table start over. */
void viewer_select_allocator(struct viewer *viewer, size_t index);

/* Acts on one key from terminal_read_key(). */
void viewer_handle_key(struct viewer *viewer, int key);

/* Whether a pane is on screen and can take the focus now. */
bool viewer_pane_available(const struct viewer *viewer, enum pane_kind pane);

/* A message on the status line until the next key. */
void viewer_status(struct viewer *viewer, bool error, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* Starts reading a line on the status line; the callbacks get the text. */
void viewer_prompt_begin(struct viewer *viewer, const char *label, const char *initial,
                         prompt_callback on_change, prompt_callback on_accept,
                         prompt_callback on_cancel);

/* The chart's cursor to the snapshot nearest time_ps (a table row's). */
void viewer_jump_to_time(struct viewer *viewer, int64_t time_ps);
/* The chart's window to [from_ps, to_ps]; false, and a status message,
 * when it holds no snapshot. */
bool viewer_zoom_to(struct viewer *viewer, int64_t from_ps, int64_t to_ps);

/* Moves the focus to a pane (used by Enter in one pane acting on another). */
void viewer_focus(struct viewer *viewer, enum pane_kind pane);

#endif
