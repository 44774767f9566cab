#include "config.h"

#include "ui/text_fit.h"

#include <stdbool.h>
#include <string.h>

/* The cells of [at, end) as drawn after other text (first: at its start). */
static int span_cells(const char *at, const char *end, const struct ui_style *style, bool first)
{
    int cells = 0;
    while (at < end && *at) {
        cells += draw_character_cells(&at, style, first);
        first = false;
    }
    return cells;
}

/* The end of the longest start of text that takes at most `cells`. */
static const char *head_within(const char *text, int cells, const struct ui_style *style)
{
    const char *at = text, *fits = text;
    int used = 0;
    while (*at) {
        used += draw_character_cells(&at, style, at == text);
        if (used > cells)
            break;
        fits = at;
    }
    return fits;
}

/* The start of the longest end of text that takes at most `cells`;
 * with slashes_only, the longest that starts at a slash (NULL when
 * none fits). One pass: the cells left after each character. */
static const char *tail_within(const char *text, int cells, const struct ui_style *style,
                               bool slashes_only)
{
    int left = span_cells(text, text + strlen(text), style, false);
    const char *at = text;
    while (*at) {
        if (left <= cells && (!slashes_only || *at == '/'))
            return at;
        left -= draw_character_cells(&at, style, false);
    }
    return slashes_only ? NULL : at;
}

/* head, the ellipsis, tail into buffer, as far as it goes. */
static const char *join(const char *text, const char *head_end, const char *ellipsis,
                        const char *tail, char *buffer, size_t size)
{
    size_t head = (size_t)(head_end - text), middle = strlen(ellipsis), rest = strlen(tail);
    if (size == 0)
        return "";
    if (head + middle + rest >= size) /* cannot happen for a sane buffer: cut the tail */
        rest = head + middle < size ? size - 1 - head - middle : 0;
    if (head + middle >= size)
        head = middle = 0;
    memcpy(buffer, text, head);
    memcpy(buffer + head, ellipsis, middle);
    memcpy(buffer + head + middle, tail, rest);
    buffer[head + middle + rest] = '\0';
    return buffer;
}

/* A path: "first/…/last/ones", "…/last/ones" or "…end"; NULL when the
 * text has no slash to cut at. */
static const char *fit_path(const char *text, int cells, const struct ui_style *style,
                            const char *ellipsis, char *buffer, size_t size)
{
    const char *first_slash = strchr(text, '/');
    if (!first_slash)
        return NULL;
    /* The first component tells a name apart too ("gradients/" from
     * "model/"): "first/" + "…" + "/last/ones", with at least one
     * component left out between them. */
    int head_cells = span_cells(text, first_slash + 1, style, true);
    const char *kept_tail = NULL;
    if (head_cells + 1 < cells && first_slash[1])
        kept_tail = tail_within(first_slash + 2, cells - head_cells - 1, style, true);
    if (kept_tail)
        return join(text, first_slash + 1, ellipsis, kept_tail, buffer, size);
    /* The first component gives way when the last would not fit beside
     * it: "…" + "/last/ones". */
    const char *bare_tail = tail_within(text, cells - 1, style, true);
    if (bare_tail)
        return join(text, text, ellipsis, bare_tail, buffer, size);
    /* Not even the last component: its end. */
    return join(text, text, ellipsis, tail_within(text, cells - 1, style, false), buffer, size);
}

const char *text_fit_middle(const char *text, int cells, const struct ui_style *style,
                            char *buffer, size_t size)
{
    const char *ellipsis = draw_ellipsis(style);
    if (cells < 1)
        return "";
    if (draw_text_width(text, style) <= cells)
        return text;
    if (cells == 1)
        return ellipsis;
    const char *path = fit_path(text, cells, style, ellipsis, buffer, size);
    if (path)
        return path;
    /* Not a path ("unused preallocated device memory"): its start reads
     * best, so the end goes, as draw_text cuts. */
    return join(text, head_within(text, cells - 1, style), ellipsis, "", buffer, size);
}

const char *text_fit_skip(const char *text, int cells, const struct ui_style *style)
{
    int skipped = 0;
    while (*text && skipped < cells)
        skipped += draw_character_cells(&text, style, skipped == 0);
    return text;
}
