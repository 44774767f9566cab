#include "config.h"

#include "ui/header_pane.h"

#include <stdio.h>
#include <string.h>

#include "model/message_text.h"
#include "report/compare_report.h"
#include "ui/text_fit.h"

/* The header's pieces, left to right; the hint sits at the right edge. */
enum piece_kind { PIECE_NAME, PIECE_FILE, PIECE_FORMAT, PIECE_HOST, PIECE_ALLOCATOR, PIECE_HINT,
                  PIECE_COUNT };

/* When the row is short, pieces go in this order: memtop's own name, the
 * format and the hint first, then the file (or run) name, which is cut
 * to FILE_MIN_WIDTH before it goes: at 80 columns it stays, being what a
 * person looks for; the allocator never goes. */
static const enum piece_kind first_drops[] = {PIECE_NAME, PIECE_FORMAT, PIECE_HINT};
static const enum piece_kind last_drops[] = {PIECE_FILE, PIECE_HOST};

#define GAP 2
#define FILE_MIN_WIDTH 12

struct piece {
    char text[600];
    size_t length; /* the allocator's id may hold a NUL */
    int width;     /* cells as drawn; 0 = not shown */
};

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash && slash[1] ? slash + 1 : path;
}

static struct text piece_text(const struct piece *piece)
{
    return text_make(piece->text, piece->length);
}

/* "allocator ID (3/4)": the one shown, or with --compare the pair shown;
 * the id raw (it may hold a NUL), escaped once where it is drawn. */
static void fill_allocator_piece(const struct viewer *viewer, struct piece *piece)
{
    struct text id;
    size_t index, count;
    if (viewer_comparing(viewer)) {
        const struct viewer_compare *compare = &viewer->compare;
        const struct allocator_pair *pair = viewer_pair(viewer);
        if (!pair)
            return;
        id = compare_pair_id(pair, viewer->profile, compare->profile);
        index = compare->pair_index;
        count = compare->comparison.count;
    } else if (viewer->allocator) {
        id = profile_string(viewer->profile, viewer->allocator->id);
        index = viewer->allocator_index;
        count = viewer->profile->allocator_count;
    } else {
        return;
    }
    struct message_text line;
    message_text_start(&line, piece->text, sizeof piece->text);
    message_text_append_text(&line, "allocator ");
    message_text_append_bytes(&line, id);
    message_text_append_format(&line, " (%zu/%zu)", index + 1, count);
    piece->length = line.length;
}

/* --compare: "base.pb vs new.pb"; two runs compared: "host w-0 (1/3)
 * RUN_A vs RUN_B". */
static void fill_compare_pieces(const struct viewer *viewer, struct piece *pieces)
{
    const struct viewer_compare *compare = &viewer->compare;
    if (compare->host_pairs > 0)
        snprintf(pieces[PIECE_FILE].text, sizeof pieces->text, "host %s (%zu/%zu) %s",
                 compare->host_names[compare->host_pair], compare->host_pair + 1,
                 compare->host_pairs, compare->runs_label ? compare->runs_label : "");
    else
        snprintf(pieces[PIECE_FILE].text, sizeof pieces->text, "%s vs %s",
                 base_name(viewer->profile->path), base_name(compare->profile->path));
}

/* "pb.gz v1"; a format without versions (a trace) has no " v0". */
static void fill_format_piece(const struct profile *profile, struct piece *piece)
{
    int length = snprintf(piece->text, sizeof piece->text, "%s%s",
                          profile_format_name(profile->format), profile->gzipped ? ".gz" : "");
    if (profile->version_known && length > 0 && (size_t)length < sizeof piece->text)
        snprintf(piece->text + length, sizeof piece->text - (size_t)length, " v%d",
                 (int)profile->version);
}

static void fill_pieces(struct viewer *viewer, struct piece *pieces)
{
    const struct host *host = &viewer->hosts->hosts[viewer->host_index];
    const struct profile *profile = viewer->profile;
    memset(pieces, 0, PIECE_COUNT * sizeof *pieces);
    snprintf(pieces[PIECE_NAME].text, sizeof pieces->text, "memtop");
    const char *path = profile && profile->path ? profile->path : host->path;
    /* A log directory's run names what is open (the host piece the host). */
    if (viewer->logdir && viewer->run_index < viewer->logdir->run_count)
        snprintf(pieces[PIECE_FILE].text, sizeof pieces->text, "%s",
                 viewer->logdir->runs[viewer->run_index].name);
    else
        snprintf(pieces[PIECE_FILE].text, sizeof pieces->text, "%s", base_name(path));
    if (viewer_comparing(viewer))
        fill_compare_pieces(viewer, pieces);
    else if (profile)
        fill_format_piece(profile, &pieces[PIECE_FORMAT]);
    if (viewer->hosts->count > 1 && !viewer_comparing(viewer))
        snprintf(pieces[PIECE_HOST].text, sizeof pieces->text, "host %s (%zu/%zu)", host->name,
                 viewer->host_index + 1, viewer->hosts->count);
    snprintf(pieces[PIECE_HINT].text, sizeof pieces->text, "? help  q quit");
    for (int i = 0; i < PIECE_COUNT; i++)
        pieces[i].length = strlen(pieces[i].text);
    fill_allocator_piece(viewer, &pieces[PIECE_ALLOCATOR]);
    for (int i = 0; i < PIECE_COUNT; i++)
        pieces[i].width = draw_bytes_width(piece_text(&pieces[i]), &viewer->style);
}

static int pieces_width(const struct piece *pieces)
{
    int total = 0;
    for (int i = 0; i < PIECE_COUNT; i++)
        if (pieces[i].width > 0)
            total += pieces[i].width + GAP;
    return total;
}

/* Drops the lesser pieces, then shortens the file name, then drops the
 * rest, until the row holds them. */
static void fit_pieces(struct piece *pieces, int room)
{
    for (size_t i = 0; i < sizeof first_drops / sizeof *first_drops; i++) {
        if (pieces_width(pieces) <= room)
            return;
        pieces[first_drops[i]].width = 0;
    }
    int excess = pieces_width(pieces) - room;
    if (excess <= 0)
        return;
    if (pieces[PIECE_FILE].width - excess >= FILE_MIN_WIDTH) {
        pieces[PIECE_FILE].width -= excess;
        return;
    }
    for (size_t i = 0; i < sizeof last_drops / sizeof *last_drops; i++) {
        if (pieces_width(pieces) <= room)
            return;
        pieces[last_drops[i]].width = 0;
    }
    int left = room - (pieces_width(pieces) - pieces[PIECE_ALLOCATOR].width);
    pieces[PIECE_ALLOCATOR].width = left > 0 ? left : 0;
}

void header_pane_draw(struct viewer *viewer, WINDOW *window, int y, int x, int width)
{
    const struct ui_style *style = &viewer->style;
    struct piece pieces[PIECE_COUNT];
    fill_pieces(viewer, pieces);
    fit_pieces(pieces, width - 1);

    attr_t bar = A_REVERSE;
    wattrset(window, bar);
    draw_blank(window, y, x, width);
    int cursor = x + 1;
    for (int i = 0; i < PIECE_COUNT; i++) {
        if (pieces[i].width <= 0)
            continue;
        bool bold = i == PIECE_NAME || i == PIECE_ALLOCATOR;
        wattrset(window, bold ? bar | A_BOLD : bar);
        char fitted[600];
        if (i == PIECE_HINT) {
            draw_bytes_right(window, y, x, width - 1, piece_text(&pieces[i]), style);
        } else if (i == PIECE_FILE) {
            /* A run's name keeps its end (the capture's time), a path its
             * first and last parts. */
            const char *text = text_fit_middle(pieces[i].text, pieces[i].width, style, fitted,
                                               sizeof fitted);
            cursor += draw_text(window, y, cursor, pieces[i].width, text, style) + GAP;
        } else
            cursor += draw_bytes(window, y, cursor, pieces[i].width, piece_text(&pieces[i]), style) +
                      GAP;
    }
    wattrset(window, style->normal);
}
