/* pane: the interface every pane of the viewer implements (tig's
 * view_ops, htop's Panel): draw itself in a rectangle, handle a request,
 * a click, start over for a new allocator, free itself, say what `e`
 * exports from it. A pane instance owns its state (a selection, how it
 * draws); what several panes share (the open allocator, the query, the
 * time window) lives in the viewer, which panes read.
 *
 * A pane handles what it knows and says when it did not: the viewer then
 * offers the request elsewhere (the pane whose keys it is, the viewer's
 * own keys). A pane never calls another pane, and never changes what the
 * viewer has open or shows: it returns follow-ups ("jump to time T",
 * "zoom to [a, b]", "focus pane P", "open my detail", "open host H") and
 * the viewer carries them out. It may write the status line and start a
 * prompt (viewer_status, viewer_prompt_begin), and edit the query through
 * ui/query.h.
 *
 * The panes there are, where they go and when they show are rows of the
 * pane table (ui/pane_table.h). */
#ifndef MEMTOP_PANE_H
#define MEMTOP_PANE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <curses.h>

#include "ui/draw.h"
#include "ui/keys.h"
#include "ui/layout.h"
#include "ui/list_cursor.h"

struct viewer;
struct export_request;
struct pane;
struct settings;

/* Where and how a pane draws this frame. */
struct pane_area {
    WINDOW *window;
    struct rect rect; /* its title row included */
    bool focused;
    /* When it shares its place with other panes (tabs): the name of the
     * tab that Tab brings to the front next, NULL when none. */
    const char *next_tab;
};

enum follow_up_kind {
    FOLLOW_UP_NONE,
    FOLLOW_UP_JUMP_TO_TIME,     /* the time window's cursor to from_ps */
    FOLLOW_UP_ZOOM_TO,          /* the time window to [from_ps, to_ps] */
    FOLLOW_UP_FOCUS,            /* the focus to pane `pane` (a pane_id) */
    FOLLOW_UP_FOCUS_SELF,       /* the focus to the pane that replied */
    FOLLOW_UP_OPEN_DETAIL,      /* the replying pane's detail over the screen */
    FOLLOW_UP_SELECT_HOST,      /* open host `index` (may load it) */
    FOLLOW_UP_SELECT_ALLOCATOR, /* show allocator `index` of the profile */
    FOLLOW_UP_SELECT_RUN,       /* open run `index` of the log directory */
    /* open host `index` showing allocator `item` of its (loaded) profile,
     * the usual layout back */
    FOLLOW_UP_SELECT_HOST_ALLOCATOR,
    FOLLOW_UP_ZOOM_PANE, /* pane `pane` on the whole body; PANE_NONE: the usual layout */
    FOLLOW_UP_SELECT_PAIR, /* --compare: show pair `index` of matched allocators */
    /* the cursor to from_ps and the table held there, titled "at step
     * `index`'s peak" */
    FOLLOW_UP_TABLE_AT_STEP_PEAK,
    /* the same at the peak of the profile's named span `index` (struct
     * time_span), titled with its name */
    FOLLOW_UP_TABLE_AT_SPAN_PEAK,
    FOLLOW_UP_TABLE_UNPIN, /* the table back to what it showed before */
};

struct follow_up {
    enum follow_up_kind kind;
    int64_t from_ps, to_ps;
    size_t index;
    size_t item; /* FOLLOW_UP_SELECT_HOST_ALLOCATOR's allocator */
    int pane;
};

#define PANE_REPLY_FOLLOW_UPS 2

/* A handler's answer: whether the request was its, and what the viewer
 * should do next, in order. */
struct pane_reply {
    bool handled;
    size_t count;
    struct follow_up follow_ups[PANE_REPLY_FOLLOW_UPS];
};

struct pane_ops {
    void (*draw)(struct pane *pane, struct viewer *viewer, const struct pane_area *area);
    /* NULL: the pane takes no keys. */
    struct pane_reply (*handle)(struct pane *pane, struct viewer *viewer, enum request request);
    /* A click `row` rows and `column` columns from the pane's top left
     * corner (its title row is row 0); `again` when the pane had the
     * focus before the click. NULL: a click only focuses it. */
    struct pane_reply (*click)(struct pane *pane, struct viewer *viewer, int row, int column,
                               bool again);
    /* What the viewer has open changed: another allocator, or with
     * new_host a host opened (again). NULL: nothing to start over. */
    void (*reset)(struct pane *pane, struct viewer *viewer, bool new_host);
    void (*free)(struct pane *pane);
    /* What `e` writes from this pane; false when there is nothing to
     * export. NULL: the summary of every allocator. */
    bool (*export)(struct pane *pane, const struct viewer *viewer,
                   struct export_request *request);
    /* The overlay the pane opened with FOLLOW_UP_OPEN_DETAIL, over the
     * whole screen. NULL: it opens none. */
    void (*draw_detail)(struct pane *pane, struct viewer *viewer, WINDOW *window, int rows,
                        int cols);
    /* The rows the pane would like, for a layout that can give them (0:
     * no wish). NULL: none. */
    int (*wanted_rows)(struct pane *pane, struct viewer *viewer);
    /* What a person chose in the pane that outlives the session
     * (ui/settings.h): recall applies the remembered choices when the
     * viewer starts, remember writes them when it ends, under keys the
     * pane names ("chart.free"). NULL: nothing to remember. */
    void (*recall)(struct pane *pane, struct viewer *viewer, const struct settings *settings);
    void (*remember)(struct pane *pane, const struct viewer *viewer, struct settings *settings);
    /* Its keys in the key table: its status-line hints come from them. */
    enum key_scope scope;
    /* Its keys reach it when another pane has the focus and does not
     * take them (p finds the peak while the table has the focus). */
    bool keys_reach_it_unfocused;
    /* It moves through items with the focused pane's movement keys
     * (j/k, PgUp/PgDn...): their hints show while it has the focus. */
    bool moves_through_items;
};

/* The base of every pane instance: a pane's own struct starts with it. */
struct pane {
    const struct pane_ops *ops;
};

/* A zeroed instance of `size` bytes (a pane's own struct, which starts
 * with struct pane) using `ops`; NULL when memory runs out. */
struct pane *pane_create(const struct pane_ops *ops, size_t size);
/* ops->free for an instance that owns nothing but itself. */
void pane_free_plain(struct pane *pane);

/* Replies. */
struct pane_reply pane_reply_handled(void);
struct pane_reply pane_reply_ignored(void);
/* A handled reply with one follow-up. */
struct pane_reply pane_reply_follow(struct follow_up follow_up);
/* Adds a follow-up to a reply (past PANE_REPLY_FOLLOW_UPS it is dropped). */
void pane_reply_add(struct pane_reply *reply, struct follow_up follow_up);

/* A list whose Enter opens the selected item (hosts, runs): Enter asks
 * for follow-up `kind` on it; movement moves the cursor (*moved then
 * true); anything else is not the list's. */
struct pane_reply pane_reply_list_request(struct list_cursor *cursor, size_t count,
                                          enum request request, enum follow_up_kind kind,
                                          bool *moved);
/* A click on such a list's row `row` (0 is its title): the cursor to
 * that item and follow-up `kind` for it; nothing below the last. */
struct pane_reply pane_reply_list_click(struct list_cursor *cursor, size_t count, int row,
                                        enum follow_up_kind kind);

/* Follow-ups. */
struct follow_up follow_up_jump_to_time(int64_t time_ps);
struct follow_up follow_up_zoom_to(int64_t from_ps, int64_t to_ps);
struct follow_up follow_up_focus(int pane);
struct follow_up follow_up_of(enum follow_up_kind kind, size_t index);

/* Draws the tab hint (" Tab: HLO modules ") at the right end of a title
 * row when the pane shares its place and the title (raw, as
 * draw_pane_title_bytes takes it) leaves room. */
void pane_draw_tab_hint(const struct pane_area *area, struct text title,
                        const struct ui_style *style);

#endif
