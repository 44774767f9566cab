#include "config.h"

#include "ui/panes/compare/compare_cells.h"

#include <inttypes.h>
#include <stdio.h>

#include "model/format.h"

/* Three significant digits and a unit letter of a 1024-based (bytes:
 * "1.25G", "150M", "512B") or 1000-based (counts: "12.3K", "1.23M")
 * scale; below `plain_below` the number itself. Six cells at most with
 * a sign. */
static void compact_number(uint64_t magnitude, bool is_bytes, char *buffer, size_t size)
{
    const char *units = is_bytes ? "BKMGTPE" : " KMGTPE";
    double base = is_bytes ? 1024.0 : 1000.0;
    if (magnitude < (is_bytes ? 1024u : 10000u)) {
        snprintf(buffer, size, "%" PRIu64 "%s", magnitude, is_bytes ? "B" : "");
        return;
    }
    double value = (double)magnitude;
    size_t unit = 0;
    while (value >= base - 0.5 && units[unit + 1]) {
        value /= base;
        unit++;
    }
    snprintf(buffer, size, value < 9.995 ? "%.2f%c" : value < 99.95 ? "%.1f%c" : "%.0f%c", value,
             units[unit]);
}

/* The magnitude of value as text, without a sign. */
static void magnitude_text(int64_t value, bool is_bytes, bool compact, char *buffer, size_t size)
{
    uint64_t magnitude = value < 0 ? 0 - (uint64_t)value : (uint64_t)value;
    if (compact)
        compact_number(magnitude, is_bytes, buffer, size);
    else if (is_bytes)
        format_bytes(magnitude > INT64_MAX ? INT64_MAX : (int64_t)magnitude, buffer, size);
    else
        snprintf(buffer, size, "%" PRIu64, magnitude);
}

char *compare_cell_value(int64_t value, bool is_bytes, bool compact, char *buffer, size_t size)
{
    char text[COMPARE_CELL_SIZE];
    magnitude_text(value, is_bytes, compact, text, sizeof text);
    snprintf(buffer, size, "%s%s", value < 0 ? "-" : "", text);
    return buffer;
}

char *compare_cell_delta(int64_t delta, bool is_bytes, bool compact, const struct ui_style *style,
                         char *buffer, size_t size)
{
    char text[COMPARE_CELL_SIZE];
    magnitude_text(delta, is_bytes, compact, text, sizeof text);
    const char *arrow = delta > 0   ? (style->utf8 ? "\xe2\x96\xb2" : "^")  /* ▲ */
                        : delta < 0 ? (style->utf8 ? "\xe2\x96\xbc" : "v")  /* ▼ */
                                    : "=";
    snprintf(buffer, size, "%s%s%s", arrow, delta > 0 ? "+" : delta < 0 ? "-" : "", text);
    return buffer;
}

attr_t compare_cell_delta_attr(int64_t delta, const struct ui_style *style)
{
    return delta > 0 ? style->grew : delta < 0 ? style->shrank : style->normal;
}
