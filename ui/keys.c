#include "config.h"

#include "ui/keys.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <curses.h>

#define ENTER_CODES {'\n', '\r', KEY_ENTER}

/* One row per thing a person can do. A key may appear in several scopes
 * (Enter does something different in each pane) as long as it asks for
 * the same request everywhere: dispatch takes the first row it finds.
 * The last field is the row's hint on the status line ("+/- zoom"),
 * NULL for a row another one's hint covers or that only help lists. */
static const struct key_binding key_table[] = {
    {{'q'}, "q", REQUEST_QUIT, KEY_SCOPE_GLOBAL, "quit", NULL},
    {{'?', KEY_F(1)}, "? F1", REQUEST_HELP, KEY_SCOPE_GLOBAL,
     "this help, at the focused pane's keys (/ searches it, n/N go on)", "? help"},
    {{KEY_CODE_ESCAPE}, "Esc", REQUEST_CANCEL, KEY_SCOPE_GLOBAL,
     "close the help, a detail view, a prompt or the filter", NULL},
    {{KEY_CODE_CONTROL('l')}, "Ctrl-L", REQUEST_REDRAW, KEY_SCOPE_GLOBAL, "redraw the screen", NULL},
    {{'\t'}, "Tab", REQUEST_FOCUS_NEXT, KEY_SCOPE_GLOBAL, "focus the next pane", "Tab pane"},
    {{KEY_BTAB}, "Shift-Tab", REQUEST_FOCUS_PREVIOUS, KEY_SCOPE_GLOBAL,
     "focus the previous pane", NULL},
    {{']'}, "]", REQUEST_ALLOCATOR_NEXT, KEY_SCOPE_GLOBAL, "next allocator", "[ ] allocator"},
    {{'['}, "[", REQUEST_ALLOCATOR_PREVIOUS, KEY_SCOPE_GLOBAL, "previous allocator", NULL},
    {{'e'}, "e", REQUEST_EXPORT, KEY_SCOPE_GLOBAL, "export the focused pane to CSV", NULL},
    {{'g'}, "g", REQUEST_GO_TO, KEY_SCOPE_GLOBAL,
     "go to a time, a step's peak, the peak or the OOM: asks \"go to: 412.3 ms, step 5, peak, "
     "oom\" and moves the chart's cursor there (the table follows it with L)", "g go to"},
    {{'R', KEY_F(5)}, "R F5", REQUEST_RELOAD, KEY_SCOPE_GLOBAL,
     "reload: the log directory read again (new runs and hosts appear), a host whose file "
     "changed read again whole", NULL},
    {{'z'}, "z", REQUEST_ZOOM_PANE, KEY_SCOPE_GLOBAL,
     "zoom the focused pane to the whole screen, and back (Tab moves the zoom)", "z zoom"},
    {{'o'}, "o", REQUEST_OOM_NEXT, KEY_SCOPE_GLOBAL,
     "to the out-of-memory error (the last first; again: the next): the chart's cursor there, "
     "the table live then, the post-mortem card", "o OOM"},
    {{'O'}, "O", REQUEST_OOM_PREVIOUS, KEY_SCOPE_GLOBAL, "to the previous out-of-memory error",
     NULL},
    {{'P'}, "P", REQUEST_POD_OVERVIEW, KEY_SCOPE_GLOBAL,
     "the pod overview: every host and allocator of the run (P or Esc closes it)", "P pod"},
    {{'}'}, "}", REQUEST_COMPARE_HOST_NEXT, KEY_SCOPE_GLOBAL,
     "two runs compared (--compare --run A --run B LOGDIR): the next host in both runs",
     "{ } host"},
    {{'{'}, "{", REQUEST_COMPARE_HOST_PREVIOUS, KEY_SCOPE_GLOBAL,
     "two runs compared: the previous host in both runs", NULL},

    {{KEY_UP, 'k'}, "Up k", REQUEST_MOVE_UP, KEY_SCOPE_PANE, "move up", "j/k move"},
    {{KEY_DOWN, 'j'}, "Down j", REQUEST_MOVE_DOWN, KEY_SCOPE_PANE, "move down", NULL},
    {{KEY_LEFT, 'h'}, "Left h", REQUEST_MOVE_LEFT, KEY_SCOPE_PANE, "move left", NULL},
    {{KEY_RIGHT, 'l'}, "Right l", REQUEST_MOVE_RIGHT, KEY_SCOPE_PANE, "move right", NULL},
    {{KEY_PPAGE}, "PgUp", REQUEST_PAGE_UP, KEY_SCOPE_PANE, "one page up", NULL},
    {{KEY_NPAGE, ' '}, "PgDn Space", REQUEST_PAGE_DOWN, KEY_SCOPE_PANE, "one page down", NULL},
    {{KEY_HOME}, "Home", REQUEST_FIRST, KEY_SCOPE_PANE, "to the first", NULL},
    {{KEY_END, 'G'}, "End G", REQUEST_LAST, KEY_SCOPE_PANE, "to the last", NULL},

    {ENTER_CODES, "Enter", REQUEST_ENTER, KEY_SCOPE_HOSTS,
     "open the host under the cursor (loading it the first time)", "Enter open host"},

    {ENTER_CODES, "Enter", REQUEST_ENTER, KEY_SCOPE_ALLOCATORS,
     "focus the allocations table (moving switches the allocator at once; with --compare: "
     "the op table)", "Enter table"},

    {{KEY_LEFT, 'h'}, "Left h", REQUEST_MOVE_LEFT, KEY_SCOPE_CHART,
     "cursor one column left (scrolls at the edge)", "h/l cursor"},
    {{KEY_RIGHT, 'l'}, "Right l", REQUEST_MOVE_RIGHT, KEY_SCOPE_CHART,
     "cursor one column right (scrolls at the edge)", NULL},
    {{'+', '='}, "+ =", REQUEST_ZOOM_IN, KEY_SCOPE_CHART, "zoom in around the cursor", "+/- zoom"},
    {{'-'}, "-", REQUEST_ZOOM_OUT, KEY_SCOPE_CHART, "zoom out", NULL},
    {{'0'}, "0", REQUEST_ZOOM_RESET, KEY_SCOPE_CHART, "show the whole timeline", "0 all"},
    {{'p'}, "p", REQUEST_JUMP_PEAK, KEY_SCOPE_CHART, "cursor to the peak", "p peak"},
    {{'f'}, "f", REQUEST_TOGGLE_FREE, KEY_SCOPE_CHART, "show or hide free memory", "f free"},
    {{'v'}, "v", REQUEST_TOGGLE_RESERVED, KEY_SCOPE_CHART,
     "show or hide the reserved line over the allocated bars (PyTorch's caching allocator: "
     "snapshots and traces)", NULL},
    {{'F'}, "F", REQUEST_TOGGLE_FRAGMENTATION, KEY_SCOPE_CHART,
     "show or hide fragmentation", "F frag"},
    {{'n'}, "n", REQUEST_MATCH_NEXT, KEY_SCOPE_CHART,
     "cursor to the next snapshot whose op matches the table's filter", NULL},
    {{'N'}, "N", REQUEST_MATCH_PREVIOUS, KEY_SCOPE_CHART,
     "cursor to the previous snapshot whose op matches the filter", NULL},
    {{'.'}, ".", REQUEST_EVENT_NEXT, KEY_SCOPE_CHART,
     "cursor to the next snapshot (event), whatever its op", ", . event"},
    {{','}, ",", REQUEST_EVENT_PREVIOUS, KEY_SCOPE_CHART,
     "cursor to the previous snapshot (event)", NULL},
    {ENTER_CODES, "Enter", REQUEST_ENTER, KEY_SCOPE_CHART,
     "list the events in the cursor's column (time, activity, size, op)", "Enter events"},
    {{'a'}, "a", REQUEST_TOGGLE_AUTO_AXIS, KEY_SCOPE_CHART,
     "y-axis from the lowest value shown instead of 0 (auto-ranged), and back", "a auto-y"},
    {{'c'}, "c", REQUEST_TOGGLE_CAPACITY_AXIS, KEY_SCOPE_CHART,
     "y-axis up to the allocator's capacity (the headroom), and back", NULL},
    {{'m'}, "m", REQUEST_MARK, KEY_SCOPE_CHART,
     "mark the cursor's time: the table shows what grew since (allocated after it, live at "
     "the cursor), the chart shades the span; m again or Esc clears it",
     "m mark"},
    {{'b'}, "b", REQUEST_STEP_BOUNDARIES, KEY_SCOPE_CHART,
     "mark where each step starts on the time axis, and back", "b steps"},

    {{'s', '>'}, "s >", REQUEST_SORT_NEXT, KEY_SCOPE_TABLE,
     "sort by the next column to the right (after the last: file order)", "s sort"},
    {{'r'}, "r", REQUEST_SORT_REVERSE, KEY_SCOPE_TABLE, "reverse the sort", "r reverse"},
    {{'/'}, "/", REQUEST_FILTER, KEY_SCOPE_TABLE,
     "filter op names, regions, data types and shapes (kinds and locations in reports) as you "
     "type (Enter keeps, Esc clears)", "/ filter"},
    {{'n'}, "n", REQUEST_MATCH_NEXT, KEY_SCOPE_TABLE, "next row matching the filter", NULL},
    {{'N'}, "N", REQUEST_MATCH_PREVIOUS, KEY_SCOPE_TABLE,
     "previous row matching the filter", NULL},
    {ENTER_CODES, "Enter", REQUEST_ENTER, KEY_SCOPE_TABLE,
     "the selected allocation in full; on a group: open it", "Enter detail"},
    {{'<'}, "<", REQUEST_SORT_PREVIOUS, KEY_SCOPE_TABLE,
     "sort by the previous column to the left (before the first: file order)", NULL},
    {{'t'}, "t", REQUEST_GROUP_NEXT, KEY_SCOPE_TABLE,
     "group the rows by location (file:line), file, function, module, op scope "
     "(model/dense_58/) and op, each where the rows record it; then not (htop's tree key)",
     "t group"},
    {{KEY_BACKSPACE, 127, '\b'}, "Backspace", REQUEST_GROUP_UP, KEY_SCOPE_TABLE,
     "out of the open group, up to the groups", NULL},
    {{KEY_LEFT, 'h'}, "Left h", REQUEST_MOVE_LEFT, KEY_SCOPE_TABLE,
     "scroll the table back to the left; when it is not scrolled: out of the open group",
     "h/l scroll"},
    {{KEY_RIGHT, 'l'}, "Right l", REQUEST_MOVE_RIGHT, KEY_SCOPE_TABLE,
     "scroll the table to the right: its first column out of the way, then the op name's "
     "text (a marker shows it is scrolled)", NULL},
    {{'H'}, "H", REQUEST_MIN_SIZE_NEXT, KEY_SCOPE_TABLE,
     "hide rows holding less than 1 MiB, 16 MiB, 256 MiB, 1 GiB, then none again",
     "H hide small"},
    {{'L'}, "L", REQUEST_LIVE_TOGGLE, KEY_SCOPE_TABLE,
     "the allocations live at the chart's cursor (following it), or at the peak again",
     "L live"},
    {{'X'}, "X", REQUEST_XPROF_TABLE, KEY_SCOPE_TABLE,
     "at the peak: XProf's own table (its peak step's allocations, older memory in one row), "
     "or the allocations live at the peak instant again (the title says which)", NULL},

    {ENTER_CODES, "Enter", REQUEST_ENTER, KEY_SCOPE_HLO,
     "zoom the chart to the module; again on it: zoom back out", "Enter zoom the chart to it"},
    {{'s'}, "s", REQUEST_SORT_NEXT, KEY_SCOPE_HLO, "sort by id, start or duration", "s sort"},
    {{'r'}, "r", REQUEST_SORT_REVERSE, KEY_SCOPE_HLO, "reverse the sort", NULL},
    {{'d'}, "d", REQUEST_DEVICE_NEXT, KEY_SCOPE_HLO,
     "only the next device's modules (then every device again)", "d device"},

    {ENTER_CODES, "Enter", REQUEST_ENTER, KEY_SCOPE_RUNS,
     "open the run under the cursor: its hosts load in the background", "Enter open run"},

    {ENTER_CODES, "Enter", REQUEST_ENTER, KEY_SCOPE_POD,
     "open that host and allocator (the overview closes)", "Enter open"},
    {{'s'}, "s", REQUEST_SORT_NEXT, KEY_SCOPE_POD,
     "sort by the next column (host, allocator, peak, capacity, % of capacity, peak time)",
     "s sort"},
    {{'r'}, "r", REQUEST_SORT_REVERSE, KEY_SCOPE_POD, "reverse the sort", "r reverse"},
    {{'P'}, "P", REQUEST_POD_OVERVIEW, KEY_SCOPE_POD, "close the overview (Esc too)",
     "P close"},

    {{'s'}, "s", REQUEST_SORT_NEXT, KEY_SCOPE_COMPARE,
     "sort the ops by the next column: the size of the delta (the first), new bytes, "
     "base bytes, op name",
     "s sort"},
    {{'r'}, "r", REQUEST_SORT_REVERSE, KEY_SCOPE_COMPARE, "reverse the sort", "r reverse"},
    {ENTER_CODES, "Enter", REQUEST_ENTER, KEY_SCOPE_COMPARE,
     "the op's bytes and counts, exactly, on the status line", "Enter exact"},
    {{']'}, "]", REQUEST_ALLOCATOR_NEXT, KEY_SCOPE_COMPARE,
     "next allocator, matched by memory id (one in a single profile says so)", NULL},
    {{'['}, "[", REQUEST_ALLOCATOR_PREVIOUS, KEY_SCOPE_COMPARE, "previous allocator", NULL},
    {{'e'}, "e", REQUEST_EXPORT, KEY_SCOPE_COMPARE,
     "export the op table to CSV, as --export compare writes it", NULL},

    {ENTER_CODES, "Enter", REQUEST_ENTER, KEY_SCOPE_STEPS,
     "zoom the chart to the step; again on it: zoom back out", "Enter zoom the chart to it"},

    /* After the table's rows: a request's scope is its first row's, and
     * / n N still reach the table and the chart from other panes. */
    {{'/'}, "/", REQUEST_FILTER, KEY_SCOPE_PANE,
     "in a list (runs, hosts, allocators, steps, HLO modules): search it as you type (Enter "
     "keeps the text, Esc goes back)", NULL},
    {{'n'}, "n", REQUEST_MATCH_NEXT, KEY_SCOPE_PANE,
     "in a list: the next item holding the searched text", NULL},
    {{'N'}, "N", REQUEST_MATCH_PREVIOUS, KEY_SCOPE_PANE,
     "in a list: the previous item holding the searched text", NULL},
};

#define KEY_TABLE_COUNT (sizeof key_table / sizeof *key_table)

const struct key_binding *keys_table(size_t *count)
{
    *count = KEY_TABLE_COUNT;
    return key_table;
}

enum request keys_request_for(int code)
{
    if (code == 0)
        return REQUEST_NONE;
    for (size_t i = 0; i < KEY_TABLE_COUNT; i++)
        for (size_t k = 0; k < KEY_BINDING_CODES && key_table[i].codes[k]; k++)
            if (key_table[i].codes[k] == code)
                return key_table[i].request;
    return REQUEST_NONE;
}

enum key_scope keys_scope_of(enum request request)
{
    for (size_t i = 0; i < KEY_TABLE_COUNT; i++)
        if (key_table[i].request == request)
            return key_table[i].scope;
    return KEY_SCOPE_GLOBAL;
}

const char *keys_scope_name(enum key_scope scope)
{
    switch (scope) {
    case KEY_SCOPE_GLOBAL: return "Anywhere";
    case KEY_SCOPE_PANE: return "In the focused pane";
    case KEY_SCOPE_HOSTS: return "Hosts";
    case KEY_SCOPE_ALLOCATORS: return "Allocators";
    case KEY_SCOPE_CHART: return "Chart";
    case KEY_SCOPE_TABLE: return "Allocations table";
    case KEY_SCOPE_HLO: return "HLO modules";
    case KEY_SCOPE_RUNS: return "Runs (a log directory)";
    case KEY_SCOPE_POD: return "Pod overview";
    case KEY_SCOPE_COMPARE: return "Two profiles compared (--compare)";
    case KEY_SCOPE_STEPS: return "Steps";
    default: return "";
    }
}

static void append_hint(const struct key_binding *binding, const char *tab_hint, char *line,
                        size_t size)
{
    const char *hint = binding->hint;
    if (binding->request == REQUEST_FOCUS_NEXT && tab_hint)
        hint = tab_hint;
    size_t used = strlen(line);
    if (used + 1 < size)
        snprintf(line + used, size - used, "%s%s", used ? "  " : "", hint);
}

void keys_hint_line(const enum key_scope *scopes, size_t scope_count,
                    const enum request *globals, size_t global_count, const char *tab_hint,
                    char *line, size_t size)
{
    if (size == 0)
        return;
    line[0] = '\0';
    for (size_t s = 0; s < scope_count; s++)
        for (size_t i = 0; i < KEY_TABLE_COUNT; i++)
            if (key_table[i].scope == scopes[s] && key_table[i].hint)
                append_hint(&key_table[i], tab_hint, line, size);
    for (size_t g = 0; g < global_count; g++) {
        for (size_t i = 0; i < KEY_TABLE_COUNT; i++) {
            if (key_table[i].request == globals[g] && key_table[i].hint) {
                append_hint(&key_table[i], tab_hint, line, size);
                break;
            }
        }
    }
}

/* Markdown cells must not hold a bare '|'. */
static void print_markdown_text(FILE *out, const char *text, size_t length)
{
    for (size_t i = 0; i < length; i++) {
        if (text[i] == '|')
            fputc('\\', out);
        fputc(text[i], out);
    }
}

/* A label's keys, one after another ("Up k": Up, then k), each between
 * `open` and `close` and written by print_text, ", " between them. */
static void print_label_keys(FILE *out, const char *label, const char *open, const char *close,
                             void (*print_text)(FILE *out, const char *text, size_t length))
{
    bool first = true;
    while (*label) {
        size_t length = strcspn(label, " ");
        if (length > 0) {
            fprintf(out, "%s%s", first ? "" : ", ", open);
            print_text(out, label, length);
            fputs(close, out);
            first = false;
        }
        label += length;
        label += strspn(label, " ");
    }
}

/* Text roff shows as it is: backslashes and hyphens escaped, and a
 * line that would start with a control character guarded. */
static void print_roff_text(FILE *out, const char *text, size_t length)
{
    if (length > 0 && (text[0] == '.' || text[0] == '\''))
        fputs("\\&", out);
    for (size_t i = 0; i < length; i++) {
        if (text[i] == '\\')
            fputs("\\e", out);
        else if (text[i] == '-')
            fputs("\\-", out);
        else
            fputc(text[i], out);
    }
}

/* How a key list is spelled: a heading per scope, then per key a row:
 * row_open, its keys (each between key_open and key_close), between,
 * what it does, row_close; text goes through `text`. */
struct key_list_style {
    void (*heading)(FILE *out, int scope);
    const char *row_open, *key_open, *key_close, *between, *row_close;
    void (*text)(FILE *out, const char *text, size_t length);
};

static void keys_print_list(FILE *out, const struct key_list_style *style)
{
    for (int scope = 0; scope < KEY_SCOPE_COUNT; scope++) {
        style->heading(out, scope);
        for (size_t i = 0; i < KEY_TABLE_COUNT; i++) {
            if ((int)key_table[i].scope != scope)
                continue;
            fputs(style->row_open, out);
            print_label_keys(out, key_table[i].label, style->key_open, style->key_close,
                             style->text);
            fputs(style->between, out);
            style->text(out, key_table[i].help, strlen(key_table[i].help));
            fputs(style->row_close, out);
        }
    }
}

static void man_heading(FILE *out, int scope)
{
    fprintf(out, ".SS %s\n", keys_scope_name((enum key_scope)scope));
}

static void markdown_heading(FILE *out, int scope)
{
    fprintf(out, "%s### %s\n\n| Key | Action |\n|---|---|\n", scope ? "\n" : "",
            keys_scope_name((enum key_scope)scope));
}

void keys_print_man(FILE *out)
{
    /* "Up k" becomes \fBUp\fR, \fBk\fR. */
    static const struct key_list_style man = {man_heading, ".TP\n", "\\fB", "\\fR", "\n",
                                              "\n", print_roff_text};
    keys_print_list(out, &man);
}

void keys_print_markdown(FILE *out)
{
    /* "Up k" becomes `Up`, `k`: one code span per key. */
    static const struct key_list_style markdown = {markdown_heading, "| ", "`", "`", " | ",
                                                   " |\n", print_markdown_text};
    keys_print_list(out, &markdown);
}
