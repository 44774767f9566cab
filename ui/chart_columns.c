#include "config.h"

#include "ui/chart_columns.h"

#include <stdio.h>

#include "model/timeline.h"

/* ---- arithmetic: times are int64 picoseconds and may sit anywhere in
 * the int64 range in a hostile file, so every sum and product is checked. */

uint64_t chart_multiply_divide(uint64_t a, uint64_t b, uint64_t divisor)
{
    if (divisor == 0)
        return 0;
    /* The 128-bit product as high:low, from 32-bit halves. */
    uint64_t a_low = a & 0xffffffffu, a_high = a >> 32;
    uint64_t b_low = b & 0xffffffffu, b_high = b >> 32;
    uint64_t low_low = a_low * b_low, low_high = a_low * b_high;
    uint64_t high_low = a_high * b_low, high_high = a_high * b_high;
    uint64_t middle = (low_low >> 32) + (low_high & 0xffffffffu) + (high_low & 0xffffffffu);
    uint64_t low = (middle << 32) | (low_low & 0xffffffffu);
    uint64_t high = high_high + (low_high >> 32) + (high_low >> 32) + (middle >> 32);
    if (high == 0)
        return low / divisor;
    /* Long division one bit at a time: rare (huge windows) and short. */
    uint64_t remainder = 0, quotient = 0;
    for (int bit = 127; bit >= 0; bit--) {
        uint64_t next = bit >= 64 ? (high >> (bit - 64)) & 1u : (low >> bit) & 1u;
        bool carry = remainder >> 63;
        remainder = remainder << 1 | next;
        quotient <<= 1;
        if (carry || remainder >= divisor) {
            remainder -= divisor; /* wraps back into range when carry */
            quotient |= 1u;
        }
    }
    return quotient;
}

uint64_t chart_range_diff(int64_t from_ps, int64_t to_ps)
{
    /* Unsigned wrap-around gives the exact distance, which fits in 64 bits. */
    return to_ps >= from_ps ? (uint64_t)to_ps - (uint64_t)from_ps : 0;
}

int64_t chart_time_add(int64_t time_ps, uint64_t offset)
{
    if (offset > chart_range_diff(time_ps, INT64_MAX))
        return INT64_MAX;
    /* The sum fits (checked above) but the offset may not fit an int64:
     * add it in steps of INT64_MAX (at most two). */
    while (offset > (uint64_t)INT64_MAX) {
        time_ps += INT64_MAX;
        offset -= (uint64_t)INT64_MAX;
    }
    return time_ps + (int64_t)offset;
}

int64_t chart_time_subtract(int64_t time_ps, uint64_t offset)
{
    if (offset > chart_range_diff(INT64_MIN, time_ps))
        return INT64_MIN;
    while (offset > (uint64_t)INT64_MAX) {
        time_ps -= INT64_MAX;
        offset -= (uint64_t)INT64_MAX;
    }
    return time_ps - (int64_t)offset;
}

/* ---- columns ---- */

static int clamp_column(const struct chart_window *window, int column)
{
    if (column < 0)
        return 0;
    if (column >= window->width)
        return window->width - 1;
    return column;
}

int64_t chart_column_start(const struct chart_window *window, int column)
{
    if (window->width <= 0)
        return window->from_ps;
    uint64_t width = (uint64_t)window->width;
    uint64_t c = (uint64_t)clamp_column(window, column);
    /* span = diff + 1 may be 2^64; write it as quotient * width + rest so
     * that c * span / width = c * quotient + c * rest / width, where both
     * products fit (c < width, rest <= width < 2^31). */
    uint64_t diff = chart_range_diff(window->from_ps, window->to_ps);
    uint64_t quotient = diff / width, rest = diff % width + 1;
    if (rest == width) {
        quotient++;
        rest = 0;
    }
    return chart_time_add(window->from_ps, c * quotient + c * rest / width);
}

int64_t chart_column_end(const struct chart_window *window, int column)
{
    if (window->width <= 0 || window->to_ps < window->from_ps)
        return window->from_ps;
    column = clamp_column(window, column);
    if (column == window->width - 1)
        return window->to_ps;
    int64_t start = chart_column_start(window, column);
    int64_t next = chart_column_start(window, column + 1);
    return next > start ? next - 1 : start;
}

int chart_column_of_time(const struct chart_window *window, int64_t time_ps)
{
    if (time_ps < window->from_ps)
        return -1;
    if (window->width <= 0 || time_ps > window->to_ps)
        return window->width > 0 ? window->width : 0;
    int low = 0, high = window->width - 1;
    while (low < high) {
        int middle = low + (high - low + 1) / 2;
        if (chart_column_start(window, middle) <= time_ps)
            low = middle;
        else
            high = middle - 1;
    }
    return low;
}

size_t chart_range_max(const struct snapshot_columns *timeline, size_t first, size_t end)
{
    return timeline_max_in_use(timeline, first, end);
}

void chart_columns_compute(const struct snapshot_columns *timeline,
                           const struct chart_window *window, struct chart_column *columns)
{
    for (int c = 0; c < window->width; c++) {
        struct chart_column *column = &columns[c];
        column->from_ps = chart_column_start(window, c);
        column->to_ps = chart_column_end(window, c);
        size_t first, end;
        timeline_range(timeline, column->from_ps, column->to_ps, &first, &end);
        column->carried = first >= end;
        column->snapshot = !column->carried ? chart_range_max(timeline, first, end)
                           : first > 0      ? first - 1
                                            : SIZE_MAX;
        column->in_use = column->snapshot == SIZE_MAX
                             ? 0
                             : snapshot_columns_in_use(timeline, column->snapshot);
    }
}

/* ---- the window ---- */

uint64_t chart_minimum_diff(int width)
{
    return width > 1 ? (uint64_t)width - 1 : 0;
}

struct chart_range chart_range_full(struct chart_range data, int width)
{
    uint64_t minimum = chart_minimum_diff(width);
    if (data.to_ps < data.from_ps)
        data.to_ps = data.from_ps;
    if (chart_range_diff(data.from_ps, data.to_ps) >= minimum)
        return data;
    data.to_ps = chart_time_add(data.from_ps, minimum);
    if (chart_range_diff(data.from_ps, data.to_ps) < minimum)
        data.from_ps = chart_time_subtract(data.to_ps, minimum);
    return data;
}

/* A window `diff` long starting at from_ps, moved inside `full`. */
static struct chart_range range_place(int64_t from_ps, uint64_t diff, struct chart_range full)
{
    uint64_t full_diff = chart_range_diff(full.from_ps, full.to_ps);
    if (diff >= full_diff)
        return full;
    if (from_ps <= full.from_ps)
        return (struct chart_range){full.from_ps, chart_time_add(full.from_ps, diff)};
    int64_t to_ps = chart_time_add(from_ps, diff);
    if (to_ps >= full.to_ps || chart_range_diff(from_ps, to_ps) < diff)
        return (struct chart_range){chart_time_subtract(full.to_ps, diff), full.to_ps};
    return (struct chart_range){from_ps, to_ps};
}

struct chart_range chart_range_clamp(struct chart_range window, struct chart_range data, int width)
{
    uint64_t diff = chart_range_diff(window.from_ps, window.to_ps);
    uint64_t minimum = chart_minimum_diff(width);
    return range_place(window.from_ps, diff < minimum ? minimum : diff,
                       chart_range_full(data, width));
}

static bool range_equal(struct chart_range a, struct chart_range b)
{
    return a.from_ps == b.from_ps && a.to_ps == b.to_ps;
}

static uint64_t multiply_saturating(uint64_t a, uint64_t b)
{
    return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

bool chart_range_zoom(struct chart_range *window, struct chart_range data, int width,
                      int64_t cursor_ps, unsigned factor, bool zoom_in)
{
    struct chart_range full = chart_range_full(data, width);
    struct chart_range current = chart_range_clamp(*window, data, width);
    if (factor < 2)
        factor = 2;
    if (cursor_ps < current.from_ps)
        cursor_ps = current.from_ps;
    if (cursor_ps > current.to_ps)
        cursor_ps = current.to_ps;
    uint64_t diff = chart_range_diff(current.from_ps, current.to_ps);
    uint64_t left = chart_range_diff(current.from_ps, cursor_ps);
    uint64_t new_diff, new_left;
    if (zoom_in) {
        uint64_t minimum = chart_minimum_diff(width);
        new_diff = diff / factor;
        new_left = left / factor;
        if (new_diff < minimum) {
            new_diff = minimum;
            new_left = chart_multiply_divide(left, minimum, diff);
        }
    } else {
        /* The inverse of zooming in (which rounds down), rounding up, so
         * that zooming in and out again gets back to the full range. */
        new_diff = multiply_saturating(diff, factor);
        new_diff = new_diff > UINT64_MAX - (factor - 1) ? UINT64_MAX : new_diff + (factor - 1);
        new_left = multiply_saturating(left, factor);
    }
    struct chart_range zoomed =
        range_place(chart_time_subtract(cursor_ps, new_left), new_diff, full);
    bool changed = !range_equal(zoomed, *window);
    *window = zoomed;
    return changed;
}

bool chart_range_scroll(struct chart_range *window, struct chart_range data, int width,
                        int columns)
{
    struct chart_range current = chart_range_clamp(*window, data, width);
    uint64_t diff = chart_range_diff(current.from_ps, current.to_ps);
    uint64_t count = columns < 0 ? 0 - (uint64_t)(int64_t)columns : (uint64_t)columns;
    uint64_t step = chart_multiply_divide(count, diff, width > 0 ? (uint64_t)width : 1);
    if (step == 0 && count > 0)
        step = 1;
    int64_t from_ps = columns < 0 ? chart_time_subtract(current.from_ps, step)
                                  : chart_time_add(current.from_ps, step);
    struct chart_range moved = range_place(from_ps, diff, chart_range_full(data, width));
    bool changed = !range_equal(moved, *window);
    *window = moved;
    return changed;
}

bool chart_range_show(struct chart_range *window, struct chart_range data, int width,
                      int64_t time_ps)
{
    struct chart_range current = chart_range_clamp(*window, data, width);
    if (time_ps < current.from_ps || time_ps > current.to_ps) {
        uint64_t diff = chart_range_diff(current.from_ps, current.to_ps);
        current = range_place(chart_time_subtract(time_ps, diff / 2), diff,
                              chart_range_full(data, width));
    }
    bool changed = !range_equal(current, *window);
    *window = current;
    return changed;
}

/* ---- drawing helpers ---- */

int chart_bar_eighths(int64_t value, int64_t top, int rows)
{
    if (value <= 0 || top <= 0 || rows <= 0)
        return 0;
    if (value >= top)
        return 8 * rows;
    /* Twice the height in eighths, then halved: rounds half up. */
    uint64_t doubled = chart_multiply_divide((uint64_t)value, 16u * (uint64_t)rows, (uint64_t)top);
    int eighths = (int)((doubled + 1) / 2);
    return eighths > 0 ? eighths : 1; /* any memory at all shows */
}

int chart_cell_eighths(int eighths, int row)
{
    long long inside = (long long)eighths - 8LL * row;
    return inside <= 0 ? 0 : inside >= 8 ? 8 : (int)inside;
}

const char *chart_bar_glyph(int eighths, bool utf8)
{
    static const char *const blocks[] = {
        " ",
        "\xe2\x96\x81", "\xe2\x96\x82", "\xe2\x96\x83", "\xe2\x96\x84",
        "\xe2\x96\x85", "\xe2\x96\x86", "\xe2\x96\x87", "\xe2\x96\x88",
    };
    /* Three ASCII heights: a low, a half and a (nearly) full cell. */
    static const char *const ascii[] = {" ", ".", ".", ":", ":", ":", "#", "#", "#"};
    if (eighths < 0)
        eighths = 0;
    if (eighths > 8)
        eighths = 8;
    return utf8 ? blocks[eighths] : ascii[eighths];
}

struct chart_scale chart_scale_ticks(int64_t top, int max_ticks)
{
    static const int64_t mantissas[] = {1, 2, 5, 10, 20, 50, 100, 200, 500};
    struct chart_scale scale = {.step = top > 0 ? top : 1, .count = 1};
    if (top <= 0 || max_ticks < 2)
        return scale;
    int64_t unit = 1;
    for (int power = 0; power <= 6; power++, unit *= 1024) {
        for (size_t m = 0; m < sizeof mantissas / sizeof *mantissas; m++) {
            int64_t step;
            if (__builtin_mul_overflow(mantissas[m], unit, &step))
                return scale;
            if (top / step + 1 <= max_ticks) {
                scale.step = step;
                scale.count = (int)(top / step + 1);
                return scale;
            }
        }
        if (power == 6)
            break; /* 1024^7 does not fit */
    }
    return scale;
}

int64_t chart_axis_bottom(int64_t lowest, int64_t top, int max_ticks)
{
    if (lowest <= 0 || top <= lowest)
        return 0; /* flat: nothing to range over */
    int64_t step = chart_scale_ticks(top - lowest, max_ticks).step;
    int64_t bottom = lowest / step * step;
    if (bottom == lowest)
        bottom -= step;
    return bottom > 0 ? bottom : 0;
}

int chart_time_decimals(int64_t step_ps)
{
    int64_t unit = 1000000000; /* 1 ms in ps */
    for (int decimals = 0; decimals < 9; decimals++, unit /= 10)
        if (unit <= step_ps)
            return decimals;
    return 9;
}

