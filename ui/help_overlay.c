#include "config.h"

#include "ui/help_overlay.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define HELP_MAX_WIDTH 72
#define KEY_COLUMN_WIDTH 12

/* Line `index` of the help text, from the key table: a heading per scope,
 * then one line per binding, a blank line between scopes. Returns false
 * past the end. *heading tells headings apart. */
static bool help_line(size_t index, char *line, size_t size, bool *heading)
{
    size_t count;
    const struct key_binding *table = keys_table(&count);
    size_t at = 0;
    for (int scope = 0; scope < KEY_SCOPE_COUNT; scope++) {
        if (scope > 0 && at++ == index) {
            line[0] = '\0';
            *heading = false;
            return true;
        }
        if (at++ == index) {
            snprintf(line, size, "%s", keys_scope_name((enum key_scope)scope));
            *heading = true;
            return true;
        }
        for (size_t i = 0; i < count; i++) {
            if ((int)table[i].scope != scope)
                continue;
            if (at++ == index) {
                snprintf(line, size, "  %-*s %s", KEY_COLUMN_WIDTH, table[i].label,
                         table[i].help);
                *heading = false;
                return true;
            }
        }
    }
    return false;
}

static size_t help_line_count(void)
{
    char line[256];
    bool heading;
    size_t count = 0;
    while (help_line(count, line, sizeof line, &heading))
        count++;
    return count;
}

void help_overlay_draw(struct viewer *viewer, WINDOW *window, int rows, int cols)
{
    const struct ui_style *style = &viewer->style;
    size_t total = help_line_count();
    int width = cols - 4 < HELP_MAX_WIDTH ? cols - 4 : HELP_MAX_WIDTH;
    int height = rows - 2;
    if ((size_t)height > total + 2)
        height = (int)total + 2;
    if (width < 20 || height < 5)
        return;
    int y = (rows - height) / 2, x = (cols - width) / 2;
    int visible = height - 2;
    list_cursor_fit_view(&viewer->help, total, visible);
    bool scrolls = total > (size_t)visible;

    wattrset(window, style->normal);
    draw_box(window, y, x, height, width, style);
    wattrset(window, style->title);
    draw_text(window, y, x + 2, width - 4, " memtop keys ", style);
    wattrset(window, style->dim);
    char footer[64];
    snprintf(footer, sizeof footer, " %s  Esc close ", scrolls ? "j/k scroll" : "");
    draw_text_right(window, y + height - 1, x + 2, width - 4, footer, style);
    for (int row = 0; row < visible; row++) {
        char line[256];
        bool heading;
        if (!help_line(viewer->help.top + (size_t)row, line, sizeof line, &heading))
            break;
        wattrset(window, heading ? style->title : style->normal);
        draw_text(window, y + 1 + row, x + 2, width - 4, line, style);
    }
    wattrset(window, style->normal);
}

void help_overlay_handle(struct viewer *viewer, enum request request)
{
    if (list_cursor_scroll(&viewer->help, help_line_count(), request))
        return;
    switch (request) {
    case REQUEST_REDRAW: viewer->redraw_all = true; break;
    case REQUEST_QUIT:
    case REQUEST_CANCEL:
    case REQUEST_HELP:
    case REQUEST_ENTER: viewer->overlay = OVERLAY_NONE; break;
    default: break;
    }
}
