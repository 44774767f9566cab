/* viewer: one viewer session: what it has open (a host's profile, one of
 * its allocators), the state its panes share (the time window, the
 * query), the pane instances (one per row of ui/pane_table.h), the
 * focus, the overlay, the prompt and the status line.
 *
 * The viewer is the only one that changes what is open and the focus:
 * panes read it, and ask through the follow-ups of their replies
 * (ui/pane.h), which viewer_follow_up() carries out. It points into the
 * host list's profiles, which stay immutable. Keys come in through
 * viewer_handle_key() (ui/viewer_input.c); ui.c draws the frame. */
#ifndef MEMTOP_VIEWER_H
#define MEMTOP_VIEWER_H

#include <stdbool.h>
#include <stddef.h>

#include "model/host_list.h"
#include "model/host_loader.h"
#include "model/query/compare.h"
#include "model/logdir.h"
#include "model/profile.h"
#include "ui/panes/chart/chart_pane.h"
#include "ui/draw.h"
#include "ui/export_prompt.h"
#include "ui/keys.h"
#include "ui/layout.h"
#include "ui/list_cursor.h"
#include "ui/list_search.h"
#include "ui/live_view.h"
#include "ui/pane.h"
#include "ui/pane_table.h"
#include "ui/prompt.h"
#include "ui/query.h"
#include "ui/time_window.h"
#include "ui/ui.h"

/* --compare: BASE and NEW side by side. The viewer's own subject
 * (profile, allocator) is BASE's; NEW is the second subject, here with
 * what the compare panes share: the pairs of allocators matched by
 * memory id, the pair shown, its op table, and what the compare chart
 * draws in a time window of its own (ui/viewer_compare.c). */
struct viewer_compare {
    bool active;
    const struct profile *profile;     /* NEW */
    const struct allocator *allocator; /* NEW's of the pair; NULL: only in BASE */
    struct profile_comparison comparison;
    size_t pair_index;
    struct op_comparison ops; /* what was live at each peak, by op name */
    /* The chart: NEW's timeline as bars (BASE's when only BASE has the
     * allocator), BASE's as a line over them when both have it. */
    const struct profile *bars_profile;
    const struct allocator *bars_allocator;
    struct chart_overlay overlay;
    struct time_window time;
    /* --pair's pairings, kept for the next host's comparison. */
    const struct allocator_pairing *pairings;
    size_t pairing_count;
    /* Two runs compared host by host: hosts holds BASE then NEW of each
     * matched host in turn; the one shown of host_pairs, their names,
     * and "RUN_A vs RUN_B" for the header. host_pairs 0: two files. */
    size_t host_pair, host_pairs;
    const char *const *host_names;
    const char *runs_label;
};

enum overlay_kind {
    OVERLAY_NONE,
    OVERLAY_HELP,
    OVERLAY_DETAIL, /* drawn by the pane that opened it (overlay_pane) */
};

/* Host lists and log directories a reload replaced (ui/viewer_reload.c). */
struct retired_list {
    struct host_list *list;
    bool owned; /* the viewer's to free; main's list is main's */
};
struct retired {
    struct retired_list *lists;
    size_t list_count, list_capacity;
    struct logdir **logdirs;
    size_t logdir_count;
};

struct viewer {
    struct host_list *hosts; /* the open run's (or the files') */
    struct ui_options options;
    struct ui_style style;

    /* A log directory's runs (NULL: none); hosts is run run_index's
     * list. run_hosts[i] is run i's list once opened: the viewer's,
     * except the one main gave (main_run), which main frees. */
    const struct logdir *logdir;
    size_t run_index, main_run;
    struct host_list **run_hosts;
    /* Why runs did not load before the viewer started (main's; NULL). */
    char *const *run_errors;
    /* After a reload: the log directory read again (the viewer's), the
     * files' new host list being the viewer's, and what was replaced. */
    struct logdir *owned_logdir;
    bool owns_hosts;
    struct retired retired;
    /* Loads hosts in the background; NULL: on this thread. */
    struct host_loader *loader;
    /* host_index is being loaded: it opens when its load ends. */
    bool host_pending;
    /* The memory id a person chose, all its bytes (a NUL among them
     * perhaps): opening another host shows the allocator with that id
     * when it has one. malloc'd; NULL: none. */
    char *kept_allocator;
    size_t kept_allocator_length;

    /* What is open. */
    size_t host_index;
    const struct profile *profile;     /* NULL when the host failed to load */
    size_t allocator_index;
    const struct allocator *allocator; /* NULL when the profile has none */
    /* The time the chart shows and the filter and sort of the
     * allocations: shared by the panes. */
    struct time_window time;
    struct query query;
    /* The query's rows live at the cursor, or grown since the mark, and
     * the indexes they come from. */
    struct live_view live;
    struct viewer_compare compare;

    struct pane *panes[PANE_COUNT];
    enum pane_id focus;
    /* The pane shown on the whole body (PANE_NONE: the usual layout):
     * a full-screen view (the pod overview), or the focused pane zoomed
     * with z, which then follows the focus; and the focus to go back to. */
    enum pane_id zoomed, focus_before_zoom;
    /* The pane a person had focused when it went away (its host not
     * loaded yet): it gets the focus back when it returns. */
    enum pane_id focus_wanted;
    /* The table area's tab in front when its panes take turns. */
    enum pane_id table_front;
    enum overlay_kind overlay;
    enum pane_id overlay_pane;
    struct list_cursor help;   /* the help overlay's scroll */
    char help_search[128];     /* the text / last searched the help for */
    size_t help_search_origin; /* the scroll before that / */

    struct prompt prompt;
    struct list_search list_search; /* `/` and n/N in the list panes */
    struct export_prompt_state export_prompt;
    char status[512];     /* raw: file text in it is escaped when drawn */
    size_t status_length; /* 0: no status (it may hold a file's NUL) */
    bool status_is_error;
    bool quit;

    /* The frame's own state. */
    struct layout layout;       /* of the last frame: mouse clicks hit it */
    bool redraw_all;            /* Ctrl-L: repaint every cell */
    bool terminal_ready;        /* curses is running: loads may show progress */
};

/* Starts a session and makes its panes; false when memory runs out.
 * viewer_select_host() then opens the first host. */
bool viewer_init(struct viewer *viewer, const struct ui_session *session,
                 const struct ui_options *options, const struct ui_style *style);
void viewer_free(struct viewer *viewer);

/* (ui/viewer_hosts.c) Starts loading the hosts in the background;
 * without it they load when opened. */
void viewer_start_loading(struct viewer *viewer);
/* Opens host `index`: at once when it is loaded, else when its load
 * ends (viewer_poll_loads); the panes start over. */
void viewer_select_host(struct viewer *viewer, size_t index);
/* Opens host `host` on allocator `allocator` of its loaded profile (the
 * pod overview's Enter): that memory id is kept from then on. */
void viewer_select_host_allocator(struct viewer *viewer, size_t host, size_t allocator);
/* Why run `index` does not load ("w-1: offset 3000: ..."): main's
 * finding, else, when every host of it the viewer tried failed, the
 * first one's; NULL when it loads or was not tried. */
const char *viewer_run_error(const struct viewer *viewer, size_t index);
/* (ui/viewer_reload.c) R, F5 and --follow: the log directory (or the
 * files) read again; with `watching`, quiet when nothing is new. */
void viewer_reload(struct viewer *viewer, bool watching);
/* What reloads replaced, freed: after the loader stopped. */
void viewer_reload_free(struct viewer *viewer);
/* Opens run `index` of the log directory and its first host. */
void viewer_select_run(struct viewer *viewer, size_t index);
/* After the loader woke the viewer: opens the host it waits for when
 * its load ended, and says how far it is. */
void viewer_poll_loads(struct viewer *viewer);
/* The allocator of `profile` to show for the kept memory id (the open
 * allocator's on the viewer's own profile): its index, 0 when it has
 * none. */
size_t viewer_allocator_for(const struct viewer *viewer, const struct profile *profile);
/* Keeps the memory id of allocator `index` of `profile` (its bytes, a
 * copy) as the one a person chose. */
void viewer_keep_allocator(struct viewer *viewer, const struct profile *profile, size_t index);
/* Stops the loader (waiting for loads in progress) and frees the hosts
 * of the runs the viewer opened. */
void viewer_stop_loading(struct viewer *viewer);
/* (ui/viewer.c, for viewer_hosts.c) Makes host `index` the open one:
 * its profile when it is loaded (else host_pending), the allocator of
 * viewer_allocator_for(); the panes start over. */
void viewer_open_host(struct viewer *viewer, size_t index);
/* Shows allocator `index` of the current profile; the panes start over. */
void viewer_select_allocator(struct viewer *viewer, size_t index);
/* Every pane starts over for what is open now; new_host when a host was
 * opened (again), not only another allocator shown. */
void viewer_reset_panes(struct viewer *viewer, bool new_host);

/* (ui/viewer_compare.c) --compare: opens BASE and NEW (both loaded) on
 * their first pair of allocators; false when memory runs out. */
bool viewer_compare_start(struct viewer *viewer, const struct profile *base,
                          const struct profile *new, const struct allocator_pairing *pairings,
                          size_t pairing_count);
/* Two runs compared: the next (direction 1) or previous (-1) matched
 * host, loaded on this thread, compared instead. */
void viewer_step_compare_host(struct viewer *viewer, int direction);
/* Whether the viewer compares two profiles. */
bool viewer_comparing(const struct viewer *viewer);
/* Shows pair `index` of the matched allocators; the panes start over. */
void viewer_select_pair(struct viewer *viewer, size_t index);
/* ] and [: the next or previous pair (direction 1 or -1). */
void viewer_step_pair(struct viewer *viewer, int direction);
/* The pair shown; NULL when neither profile has an allocator. */
const struct allocator_pair *viewer_pair(const struct viewer *viewer);
/* What e writes from a compare pane: the op table of the pair shown
 * (false without a pair); the pairs and the op table export the same. */
struct export_request;
bool viewer_compare_export_request(const struct viewer *viewer, struct export_request *request);
void viewer_compare_free(struct viewer *viewer);
/* Shows `pane` on the whole body (PANE_NONE: the usual layout again). */
void viewer_zoom(struct viewer *viewer, enum pane_id pane);

/* Acts on one key from terminal_read_key() (ui/viewer_input.c). */
void viewer_handle_key(struct viewer *viewer, int key);

/* Whether a pane is on screen now. */
bool viewer_pane_available(const struct viewer *viewer, enum pane_id pane);
/* Where a pane draws in the last frame's layout (the table area's place
 * when it is a tab there; the whole body for the focused pane while the
 * pane is zoomed); NULL when it is not drawn (not available, a tab
 * behind another, another pane zoomed, or no room). */
const struct rect *viewer_pane_rect(const struct viewer *viewer, enum pane_id pane);
/* Whether the pane takes turns with others in its place (every pane of
 * the table area in the table's place, or the HLO modules and the steps
 * below the table). */
bool viewer_pane_tabbed(const struct viewer *viewer, enum pane_id pane);
/* The tab after `pane` in Tab order in the place where it takes turns;
 * PANE_NONE when there is none. */
enum pane_id viewer_next_tab(const struct viewer *viewer, enum pane_id pane);
/* The pane Tab (direction 1) or Shift-Tab (-1) focuses next. */
enum pane_id viewer_focus_neighbour(const struct viewer *viewer, int direction);

/* The remembered settings (ui/settings.h): the table's sort, the zoomed
 * pane and each pane's own (its recall/remember ops). Recall after the
 * first host is open. */
void viewer_recall_settings(struct viewer *viewer, const struct settings *settings);
void viewer_remember_settings(struct viewer *viewer, struct settings *settings);

/* o: the OOM card in front (ui/oom_pane.h), where it takes turns with
 * other panes; focused when it shares the table's own place. */
void viewer_show_oom_card(struct viewer *viewer);

/* z: the focused pane over the whole body, or back to the layout. */
void viewer_toggle_pane_zoom(struct viewer *viewer);

/* Moves the focus to a pane that is available and can take it. */
void viewer_focus(struct viewer *viewer, enum pane_id pane);
/* Does what a pane's reply asks (ui/pane.h), for pane `from`. */
void viewer_follow_up(struct viewer *viewer, enum pane_id from, const struct follow_up *follow_up);

/* A message on the status line until the next key. The status line
 * escapes it when it draws it (once): pass a file's text raw. */
void viewer_status(struct viewer *viewer, bool error, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
/* The same from bytes that may hold a NUL (a profile's text in them). */
void viewer_status_bytes(struct viewer *viewer, bool error, struct text text);
void viewer_status_clear(struct viewer *viewer);
/* "BEFORE HOST AFTER MESSAGE" for a host that failed to load ("", ": "
 * gives "HOST: MESSAGE"), the load's message raw: drawn escaped once. */
void viewer_status_host_error(struct viewer *viewer, const struct host *host, const char *before,
                              const char *after);
/* "HOST: warning: FIRST (+N more)": what the load found odd, as main
 * prints it on stderr (all of them there; the first one here). The
 * profile has at least one warning. */
void viewer_status_load_warnings(struct viewer *viewer, const struct host *host,
                                 const struct profile *profile);

/* Starts reading a line on the status line; the callbacks get the text. */
void viewer_prompt_begin(struct viewer *viewer, const char *label, const char *initial,
                         prompt_callback on_change, prompt_callback on_accept,
                         prompt_callback on_cancel);
/* Asks a question on the status line that one key answers; on_answer
 * gets the key as text ("y"), "" for Enter, Esc and other keys. */
void viewer_prompt_one_key(struct viewer *viewer, const char *label, prompt_callback on_answer);

#endif
