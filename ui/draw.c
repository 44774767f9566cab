#include "config.h"

#include "ui/draw.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

#include "model/format.h"
#include "model/message_text.h"

/* Colour pair numbers; pair 0 is the terminal's own. */
enum color_pair {
    PAIR_TITLE = 1,
    PAIR_SELECTED,
    PAIR_SELECTED_UNFOCUSED,
    PAIR_HEAP,
    PAIR_STACK,
    PAIR_FREE,
    PAIR_FRAGMENTATION,
    PAIR_PEAK,
    PAIR_CAPACITY,
    PAIR_ERROR,
    PAIR_COMPARED,
};

void draw_style_init(struct ui_style *style, bool utf8, bool color)
{
    memset(style, 0, sizeof *style);
    style->utf8 = utf8;
    style->color = color;
    style->normal = A_NORMAL;
    style->dim = A_DIM;
    style->cursor = A_REVERSE;
    if (!color) {
        /* Every distinction must survive a monochrome terminal (vt100,
         * NO_COLOR): reverse video for the selection, bold for emphasis. */
        style->title = A_BOLD;
        style->selected = A_REVERSE;
        style->selected_unfocused = A_BOLD;
        style->heap = A_NORMAL;
        style->stack = A_BOLD;
        style->free_memory = A_DIM;
        style->fragmentation = A_BOLD;
        style->peak = A_BOLD;
        style->capacity = A_DIM;
        style->error = A_BOLD;
        style->compared = A_BOLD;
        style->grew = A_BOLD;
        style->shrank = A_NORMAL;
        return;
    }
    /* -1 is the terminal's default background (use_default_colors). */
    init_pair(PAIR_TITLE, COLOR_CYAN, -1);
    init_pair(PAIR_SELECTED, COLOR_BLACK, COLOR_CYAN);
    init_pair(PAIR_SELECTED_UNFOCUSED, COLOR_WHITE, COLOR_BLUE);
    init_pair(PAIR_HEAP, COLOR_GREEN, -1);
    init_pair(PAIR_STACK, COLOR_YELLOW, -1);
    init_pair(PAIR_FREE, COLOR_BLUE, -1);
    init_pair(PAIR_FRAGMENTATION, COLOR_MAGENTA, -1);
    init_pair(PAIR_PEAK, COLOR_RED, -1);
    init_pair(PAIR_CAPACITY, COLOR_CYAN, -1);
    init_pair(PAIR_ERROR, COLOR_RED, -1);
    init_pair(PAIR_COMPARED, COLOR_MAGENTA, -1);
    style->title = COLOR_PAIR(PAIR_TITLE) | A_BOLD;
    style->selected = COLOR_PAIR(PAIR_SELECTED);
    style->selected_unfocused = COLOR_PAIR(PAIR_SELECTED_UNFOCUSED);
    style->heap = COLOR_PAIR(PAIR_HEAP);
    style->stack = COLOR_PAIR(PAIR_STACK);
    style->free_memory = COLOR_PAIR(PAIR_FREE);
    style->fragmentation = COLOR_PAIR(PAIR_FRAGMENTATION);
    style->peak = COLOR_PAIR(PAIR_PEAK) | A_BOLD;
    style->capacity = COLOR_PAIR(PAIR_CAPACITY);
    style->error = COLOR_PAIR(PAIR_ERROR) | A_BOLD;
    style->compared = COLOR_PAIR(PAIR_COMPARED) | A_BOLD;
    style->grew = COLOR_PAIR(PAIR_ERROR);
    style->shrank = COLOR_PAIR(PAIR_HEAP);
}

/* The display width of one safe piece (one source character made safe). */
static int piece_cells(const char *piece, size_t length, bool utf8, bool *unprintable)
{
    *unprintable = false;
    if (!utf8 || (unsigned char)piece[0] < 0x80)
        return (int)length; /* ASCII, or an escape such as "\x1b" */
    mbstate_t state;
    memset(&state, 0, sizeof state);
    wchar_t wide;
    size_t used = mbrtowc(&wide, piece, length, &state);
    if (used == (size_t)-1 || used == (size_t)-2 || used != length) {
        *unprintable = true;
        return 0;
    }
    int cells = wcwidth(wide);
    if (cells < 0)
        *unprintable = true;
    return cells < 0 ? 0 : cells;
}

/* One character of text, made safe, into piece (NUL-terminated);
 * advances text past it and returns the piece's length in bytes. */
static size_t next_piece(struct text *text, bool utf8, char *piece, size_t size, int *cells,
                         bool first)
{
    uint32_t code_point = 0;
    size_t length = format_utf8_decode_bytes(text->bytes, text->length, &code_point);
    size_t source_length = length ? length : 1; /* an invalid byte goes alone */
    struct text source = text_make(text->bytes, source_length);
    text->bytes += source_length;
    text->length -= source_length;

    /* Controls (NUL too), bidirectional controls and invalid bytes are
     * escaped here. */
    size_t piece_length = format_safe_bytes(source, utf8 ? 0 : FORMAT_SAFE_ASCII, piece, size);
    bool unprintable;
    *cells = piece_cells(piece, piece_length, utf8, &unprintable);
    /* A character the locale cannot print, or a combining mark with
     * nothing of ours to combine with, shows as its code point. */
    if (unprintable || (*cells == 0 && first)) {
        piece_length = (size_t)snprintf(piece, size, "\\u{%x}", (unsigned)code_point);
        *cells = (int)piece_length;
    }
    return piece_length;
}

#define DRAW_BUFFER_SIZE 4096

const char *draw_ellipsis(const struct ui_style *style)
{
    return style->utf8 ? "\xe2\x80\xa6" : "+";
}

/* Lays out text in at most max_cells cells into out (out_size bytes,
 * NUL-terminated), cutting with an ellipsis; returns the cells used. */
static int fit_text(struct text text, const struct ui_style *style, int max_cells, char *out,
                    size_t out_size, size_t *out_length)
{
    const char *ellipsis = draw_ellipsis(style);
    const size_t ellipsis_length = strlen(ellipsis);
    size_t used = 0, used_at_fit = 0;
    int cells = 0, cells_at_fit = 0;
    bool cut = false;
    while (text.length > 0) {
        char piece[32];
        int cells_of_piece;
        size_t length = next_piece(&text, style->utf8, piece, sizeof piece, &cells_of_piece,
                                   cells == 0);
        if (cells + cells_of_piece > max_cells || used + length + ellipsis_length >= out_size) {
            cut = true;
            break;
        }
        memcpy(out + used, piece, length);
        used += length;
        cells += cells_of_piece;
        /* Where the text would be cut: leave a cell for the ellipsis. */
        if (cells < max_cells) {
            used_at_fit = used;
            cells_at_fit = cells;
        }
    }
    if (cut) {
        used = used_at_fit;
        cells = cells_at_fit;
        if (cells < max_cells) {
            memcpy(out + used, ellipsis, ellipsis_length);
            used += ellipsis_length;
            cells++;
        }
    }
    out[used] = '\0';
    *out_length = used;
    return cells;
}

/* A width that ends past the window's right edge would wrap onto the
 * next row: clip it to the window. */
static int clip_width(WINDOW *window, int x, int width)
{
    int room = getmaxx(window) - x;
    return width < room ? width : room;
}

/* Fits text into [x, x + width) and draws it at the left or right end. */
static int draw_text_aligned(WINDOW *window, int y, int x, int width, struct text text,
                             const struct ui_style *style, bool right)
{
    width = clip_width(window, x, width);
    if (width <= 0 || x < 0)
        return 0;
    char out[DRAW_BUFFER_SIZE];
    size_t length;
    int cells = fit_text(text, style, width, out, sizeof out, &length);
    if (length > 0)
        mvwaddnstr(window, y, right ? x + width - cells : x, out, (int)length);
    return cells;
}

int draw_bytes(WINDOW *window, int y, int x, int width, struct text text,
               const struct ui_style *style)
{
    return draw_text_aligned(window, y, x, width, text, style, false);
}

int draw_bytes_right(WINDOW *window, int y, int x, int width, struct text text,
                     const struct ui_style *style)
{
    return draw_text_aligned(window, y, x, width, text, style, true);
}

int draw_text(WINDOW *window, int y, int x, int width, const char *text,
              const struct ui_style *style)
{
    return text ? draw_bytes(window, y, x, width, text_of(text), style) : 0;
}

int draw_text_right(WINDOW *window, int y, int x, int width, const char *text,
                    const struct ui_style *style)
{
    return text ? draw_bytes_right(window, y, x, width, text_of(text), style) : 0;
}

int draw_character_cells(const char **text, const struct ui_style *style, bool first)
{
    struct text rest = text_of(*text);
    char piece[32];
    int cells;
    next_piece(&rest, style->utf8, piece, sizeof piece, &cells, first);
    *text = rest.bytes;
    return cells;
}

int draw_bytes_width(struct text text, const struct ui_style *style)
{
    int cells = 0;
    bool first = true;
    /* Printable ASCII, most of what a table measures (every row's cells
     * when the rows change), is one cell a byte as next_piece would make
     * it, a backslash two ("\\"): counted without the pieces. */
    while (text.length > 0 && (unsigned char)text.bytes[0] >= 0x20 &&
           (unsigned char)text.bytes[0] < 0x7f && cells < INT_MAX - 2) {
        cells += text.bytes[0] == '\\' ? 2 : 1;
        text.bytes++;
        text.length--;
        first = false;
    }
    while (text.length > 0) {
        char piece[32];
        int cells_of_piece;
        next_piece(&text, style->utf8, piece, sizeof piece, &cells_of_piece, first);
        first = false;
        if (cells > INT_MAX - cells_of_piece)
            return INT_MAX;
        cells += cells_of_piece;
    }
    return cells;
}

int draw_text_width(const char *text, const struct ui_style *style)
{
    return text ? draw_bytes_width(text_of(text), style) : 0;
}

void draw_blank(WINDOW *window, int y, int x, int width)
{
    width = clip_width(window, x, width);
    if (width <= 0 || x < 0)
        return;
    wmove(window, y, x);
    for (int i = 0; i < width; i++)
        waddch(window, ' ');
}

static void draw_rule(WINDOW *window, int y, int x, int width, const struct ui_style *style)
{
    width = clip_width(window, x, width);
    if (width <= 0 || x < 0)
        return;
    wmove(window, y, x);
    for (int i = 0; i < width; i++)
        waddstr(window, style->utf8 ? "\xe2\x94\x80" : "-");
}

void draw_pane_title_bytes(WINDOW *window, int y, int x, int width, struct text title,
                           bool focused, const struct ui_style *style)
{
    if (width <= 0)
        return;
    wattrset(window, style->dim);
    draw_rule(window, y, x, width, style);
    if (width < 4)
        return;
    /* The focused pane's title is reversed, so focus shows without colour. */
    wattrset(window, focused ? (style->selected | A_BOLD) : style->title);
    char padded[256];
    struct message_text line;
    message_text_start(&line, padded, sizeof padded);
    message_text_append_text(&line, " ");
    message_text_append_bytes(&line, title);
    message_text_append_text(&line, " ");
    draw_bytes(window, y, x + 1, width - 2, message_text_get(&line), style);
    wattrset(window, style->normal);
}

void draw_pane_title(WINDOW *window, int y, int x, int width, const char *title, bool focused,
                     const struct ui_style *style)
{
    draw_pane_title_bytes(window, y, x, width, text_of(title), focused, style);
}

void draw_box(WINDOW *window, int y, int x, int height, int width,
                     const struct ui_style *style)
{
    const char *horizontal = style->utf8 ? "\xe2\x94\x80" : "-";
    const char *vertical = style->utf8 ? "\xe2\x94\x82" : "|";
    const char *corners[4] = {"+", "+", "+", "+"};
    if (style->utf8) {
        corners[0] = "\xe2\x94\x8c";
        corners[1] = "\xe2\x94\x90";
        corners[2] = "\xe2\x94\x94";
        corners[3] = "\xe2\x94\x98";
    }
    for (int row = 0; row < height; row++) {
        bool edge = row == 0 || row == height - 1;
        wmove(window, y + row, x);
        waddstr(window, edge ? corners[row == 0 ? 0 : 2] : vertical);
        for (int column = 1; column < width - 1; column++)
            waddstr(window, edge ? horizontal : " ");
        waddstr(window, edge ? corners[row == 0 ? 1 : 3] : vertical);
    }
}

