#include "config.h"

#include "ui/ui.h"

#include <stdio.h>
#include <string.h>

#include <curses.h>

#include "ui/header_pane.h"
#include "ui/settings.h"
#include "ui/help_overlay.h"
#include "ui/logdir_watch.h"
#include "ui/status_line.h"
#include "ui/terminal.h"
#include "ui/viewer.h"

static void draw_too_small(struct viewer *viewer, WINDOW *window)
{
    const struct ui_style *style = &viewer->style;
    char need[64], have[64];
    snprintf(need, sizeof need, "terminal too small (need %dx%d)", LAYOUT_MIN_COLS,
             LAYOUT_MIN_ROWS);
    snprintf(have, sizeof have, "now %dx%d; q quits", COLS, LINES);
    int y = LINES / 2 - 1;
    if (y < 0)
        y = 0;
    const char *lines[] = {need, have};
    for (int i = 0; i < 2 && y + i < LINES; i++) {
        int width = draw_text_width(lines[i], style);
        int x = width < COLS ? (COLS - width) / 2 : 0;
        wattrset(window, i == 0 ? style->error : style->normal);
        draw_text(window, y + i, x, COLS - x, lines[i], style);
    }
    wattrset(window, style->normal);
}

static bool row_is_title(const struct rect *const *rects, size_t count, int y)
{
    for (size_t i = 0; i < count; i++)
        if (!rect_is_empty(rects[i]) && rects[i]->y == y)
            return true;
    return false;
}

/* The rule between the columns, joined to the pane titles it meets. */
static void draw_separator(struct viewer *viewer, WINDOW *window)
{
    const struct layout *layout = &viewer->layout;
    const struct ui_style *style = &viewer->style;
    const struct rect *left[] = {&layout->runs, &layout->hosts, &layout->allocators,
                                 &layout->summary, &layout->by_region, &layout->by_data_type};
    const struct rect *right[] = {&layout->chart, &layout->table, &layout->hlo};
    /* Without data only the chart's place has a title. */
    size_t right_count = viewer->allocator || viewer_comparing(viewer) ? 3 : 1;
    wattrset(window, style->dim);
    for (int row = 0; row < layout->separator.height; row++) {
        int y = layout->separator.y + row;
        bool joins_left = row_is_title(left, 6, y), joins_right = row_is_title(right, right_count, y);
        const char *glyph;
        if (!style->utf8)
            glyph = joins_left || joins_right ? "+" : "|";
        else if (joins_left && joins_right)
            glyph = "\xe2\x94\xbc"; /* ┼ */
        else if (joins_left)
            glyph = "\xe2\x94\xa4"; /* ┤ */
        else if (joins_right)
            glyph = "\xe2\x94\x9c"; /* ├ */
        else
            glyph = "\xe2\x94\x82"; /* │ */
        mvwaddstr(window, y, layout->separator.x, glyph);
    }
    wattrset(window, style->normal);
}

/* The longest start of text (whole words when it can) that fits in width
 * cells; all of it on the last row, which draw_bytes cuts. */
static size_t wrapped_row_length(struct text text, int width, bool last,
                                 const struct ui_style *style)
{
    size_t cut = text.length;
    while (!last && draw_bytes_width(text_make(text.bytes, cut), style) > width) {
        size_t space = cut;
        while (space > 0 && text.bytes[space - 1] != ' ')
            space--;
        if (space <= 1)
            break;
        cut = space - 1;
    }
    return cut;
}

/* Draws text (raw: a load's message) over several rows, broken at
 * spaces; returns the rows used. */
static int draw_wrapped(WINDOW *window, int y, int x, int width, int max_rows, struct text text,
                        const struct ui_style *style)
{
    int rows = 0;
    while (text.length > 0 && rows < max_rows && width > 0) {
        size_t cut = wrapped_row_length(text, width, rows + 1 == max_rows, style);
        draw_bytes(window, y + rows, x, width, text_make(text.bytes, cut), style);
        rows++;
        text.bytes += cut;
        text.length -= cut;
        while (text.length > 0 && text.bytes[0] == ' ') {
            text.bytes++;
            text.length--;
        }
    }
    return rows;
}

/* Where the chart and table would be, when there is nothing to chart. */
static void draw_no_data(struct viewer *viewer, WINDOW *window, const struct rect *area)
{
    const struct ui_style *style = &viewer->style;
    const struct host *host = &viewer->hosts->hosts[viewer->host_index];
    draw_pane_title(window, area->y, area->x, area->width, "Memory", false, style);
    int y = area->y + 2, x = area->x + 2, width = area->width - 4;
    if (viewer->host_pending) {
        char text[LOAD_ERROR_SIZE + 64];
        snprintf(text, sizeof text, "Loading host %s: %d%%", host->name, host_load_percent(host));
        draw_wrapped(window, y, x, width, 2, text_of(text), style);
        wattrset(window, style->dim);
        draw_wrapped(window, y + 2, x, width, 3, text_of(host->path), style);
        wattrset(window, style->normal);
        return;
    }
    if (viewer->profile) {
        draw_text(window, y, x, width, "This profile has no allocators.", style);
        return;
    }
    wattrset(window, style->error);
    draw_text(window, y, x, width, "Could not load this host:", style);
    wattrset(window, style->normal);
    y += 1 + draw_wrapped(window, y + 1, x, width, 3, text_of(host->path), style);
    y += draw_wrapped(window, y, x, width, 4, load_error_message(&host->error), style);
    if (viewer->hosts->count > 1) {
        wattrset(window, style->dim);
        draw_wrapped(window, y + 1, x, width, 2,
                     text_of("Pick another host in the Hosts list (j/k, Enter)."), style);
        wattrset(window, style->normal);
    }
}

/* Each pane on screen draws itself in its place, in pane-table order;
 * with no allocator the right column says why instead. */
static void draw_panes(struct viewer *viewer, WINDOW *window)
{
    const struct layout *layout = &viewer->layout;
    header_pane_draw(viewer, window, layout->header.y, layout->header.x, layout->header.width);
    for (enum pane_id id = 0; id < PANE_COUNT; id++) {
        const struct rect *rect = viewer_pane_rect(viewer, id);
        if (!rect)
            continue;
        enum pane_id next_tab = viewer_next_tab(viewer, id);
        struct pane_area area = {window, *rect, viewer->focus == id,
                                 next_tab == PANE_NONE ? NULL : pane_table_row(next_tab)->name};
        viewer->panes[id]->ops->draw(viewer->panes[id], viewer, &area);
    }
    if (viewer->zoomed != PANE_NONE)
        return; /* one pane, no columns to separate */
    if (!viewer->allocator && !viewer_comparing(viewer)) {
        struct rect area = layout->chart;
        area.height = layout->status.y - area.y;
        draw_no_data(viewer, window, &area);
    }
    draw_separator(viewer, window);
}

/* The layout of this frame: the table area holds two places when a
 * second of its panes is on screen (tabs for three or more); the
 * breakdowns share their rows as the first would like. */
static void layout_frame(struct viewer *viewer)
{
    size_t allocator_count = viewer->profile ? viewer->profile->allocator_count : 0;
    size_t host_count = viewer->hosts->count;
    if (viewer_comparing(viewer)) { /* one list: the allocators matched */
        allocator_count = viewer->compare.comparison.count;
        host_count = 1;
    }
    int table_area_panes = 0;
    for (enum pane_id id = 0; id < PANE_COUNT; id++)
        table_area_panes += pane_table_row(id)->in_table_area && viewer_pane_available(viewer, id);
    size_t run_count = viewer_pane_available(viewer, PANE_RUNS) ? viewer->logdir->run_count : 0;
    layout_compute_with_runs(&viewer->layout, LINES, COLS, run_count, host_count,
                             allocator_count, table_area_panes - 1);
    /* A report without a timeline, nor a memory map to draw where the
     * chart goes (an OOM log's BFC dump has one): the table takes the
     * chart's rows. */
    if (!viewer_comparing(viewer) && viewer->allocator &&
        viewer->allocator->timeline_kind == TIMELINE_NONE &&
        viewer->allocator->memory_map_count == 0)
        layout_drop_chart(&viewer->layout);
    bool by_region = viewer_pane_available(viewer, PANE_BY_REGION);
    bool by_data_type = viewer_pane_available(viewer, PANE_BY_DATA_TYPE);
    if (!by_region && !by_data_type)
        layout_drop_breakdowns(&viewer->layout);
    else if (!by_region || !by_data_type)
        layout_keep_one_breakdown(&viewer->layout, by_region);
    for (enum pane_id id = 0; id < PANE_COUNT; id++) {
        struct pane *pane = viewer->panes[id];
        const struct rect *rect = viewer_pane_rect(viewer, id);
        if (pane->ops->wanted_rows && rect && pane_table_row(id)->place == LAYOUT_PLACE_BY_REGION)
            layout_share_breakdowns(&viewer->layout, pane->ops->wanted_rows(pane, viewer));
    }
}

/* The overlay a pane opened, drawn by that pane. */
static void draw_detail(struct viewer *viewer, WINDOW *window)
{
    struct pane *pane = viewer_pane_available(viewer, viewer->overlay_pane)
                            ? viewer->panes[viewer->overlay_pane]
                            : NULL;
    if (pane && pane->ops->draw_detail)
        pane->ops->draw_detail(pane, viewer, window, LINES, COLS);
    else
        viewer->overlay = OVERLAY_NONE;
}

static void show_cursor(bool visible)
{
    static int shown = -1;
    if (shown != (int)visible)
        curs_set(visible ? 1 : 0);
    shown = visible;
}

/* One frame: everything is drawn into stdscr and curses sends only the
 * cells that changed, so moving a cursor costs a few bytes, not a screen. */
static void draw_frame(struct viewer *viewer)
{
    WINDOW *window = stdscr;
    if (viewer->redraw_all) {
        clearok(curscr, TRUE);
        viewer->redraw_all = false;
    }
    werase(window);
    /* The table's rows for where the cursor is now (it follows it). */
    live_view_sync(viewer);
    layout_frame(viewer);
    bool prompt_cursor = false;
    int cursor_x = 0;
    if (viewer->layout.too_small) {
        draw_too_small(viewer, window);
    } else {
        draw_panes(viewer, window);
        if (viewer->overlay == OVERLAY_HELP)
            help_overlay_draw(viewer, window, LINES, COLS);
        else if (viewer->overlay == OVERLAY_DETAIL)
            draw_detail(viewer, window);
        const struct rect *status = &viewer->layout.status;
        prompt_cursor = status_line_draw(viewer, window, status->y, status->x, status->width,
                                         &cursor_x);
        if (prompt_cursor)
            wmove(window, status->y, cursor_x);
    }
    show_cursor(prompt_cursor);
    wnoutrefresh(window);
    doupdate();
}

int ui_run(const struct ui_session *session, const struct ui_options *options)
{
    struct host_list *hosts = session->hosts;
    struct ui_style style;
    char error[256];
    if (hosts->count == 0)
        return 0;
    if (!terminal_start(options, &style, error, sizeof error)) {
        fprintf(stderr, "memtop: %s\n", error);
        return 1;
    }
    struct viewer viewer;
    if (!viewer_init(&viewer, session, options, &style)) {
        terminal_stop();
        fprintf(stderr, "memtop: out of memory\n");
        return 1;
    }
    viewer.terminal_ready = true;
    if (session->compare) {
        /* main loaded BASE and NEW; nothing loads in the background. */
        if (!viewer_compare_start(&viewer, hosts->hosts[0].profile, hosts->hosts[1].profile,
                                  session->pairings, session->pairing_count)) {
            terminal_stop();
            viewer_free(&viewer);
            fprintf(stderr, "memtop: out of memory\n");
            return 1;
        }
    } else {
        viewer_start_loading(&viewer);
        if (viewer.loader)
            terminal_watch(host_loader_wake_fd(viewer.loader));
        viewer_select_host(&viewer, session->first_host);
    }
    viewer.compare.host_pairs = session->compare ? session->compare_hosts : 0;
    viewer.compare.host_names = session->compare_host_names;
    viewer.compare.runs_label = session->compare_runs;
    if (session->note)
        viewer_status(&viewer, false, "%s", session->note);
    if (viewer.logdir && session->failed_run < viewer.logdir->run_count) {
        const char *why = viewer_run_error(&viewer, session->failed_run);
        viewer_status(&viewer, true, "%s run %s did not load (%s); showing %s",
                      style.utf8 ? "\xe2\x9c\x97" : "x",
                      viewer.logdir->runs[session->failed_run].name, why ? why : "?",
                      viewer.logdir->runs[viewer.run_index].name);
    }
    /* What the person chose last time, unless told to forget. */
    struct settings settings;
    char settings_file[4096];
    bool remembers = !options->no_settings && settings_path(settings_file, sizeof settings_file);
    memset(&settings, 0, sizeof settings);
    if (remembers && settings_load(&settings, settings_file) == SETTINGS_NOT_REGULAR) {
        /* Said, not fatal; and never written into either. */
        viewer_status(&viewer, true, "settings: not a regular file, ignored: %s", settings_file);
        remembers = false;
    }
    if (remembers)
        viewer_recall_settings(&viewer, &settings);
    /* --follow: the log directory (or the files' directories) watched. */
    struct logdir_watch watch = {-1, -1};
    if (options->follow && !session->compare) {
        logdir_watch_start(&watch, viewer.logdir, viewer.hosts);
        terminal_watch_follow(watch.fd, watch.timeout_ms);
        viewer_status(&viewer, false, "following %s: new runs and hosts appear as they are "
                                      "written",
                      viewer.logdir ? viewer.logdir->path : "the files");
    }
    int status = 0;
    while (!viewer.quit) {
        draw_frame(&viewer);
        int key = terminal_read_key();
        if (key == TERMINAL_KEY_FOLLOW) {
            /* News, or a look every few seconds: the reload says whether
             * anything is new. */
            logdir_watch_drain(&watch);
            viewer_reload(&viewer, true);
            logdir_watch_add(&watch, viewer.logdir, viewer.hosts);
            continue;
        }
        if (key == TERMINAL_KEY_WAKE) {
            viewer_poll_loads(&viewer);
            continue;
        }
        if (key == TERMINAL_KEY_SIGNAL)
            break;
        if (key == TERMINAL_KEY_CLOSED) {
            status = 1; /* the terminal went away under us */
            break;
        }
        viewer_handle_key(&viewer, key);
    }
    if (remembers) {
        /* A state directory that cannot be written costs the settings,
         * not the session: nothing to report. */
        char save_error[256];
        viewer_remember_settings(&viewer, &settings);
        settings_save(&settings, settings_file, save_error, sizeof save_error);
    }
    /* The terminal goes back first: stopping the loader waits for a
     * load in progress, and a signal ends memtop without waiting. */
    terminal_watch(-1);
    terminal_watch_follow(-1, -1);
    logdir_watch_stop(&watch);
    terminal_stop();
    terminal_reraise(terminal_pending_signal());
    viewer_free(&viewer);
    return status;
}
