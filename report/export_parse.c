/* export_parse: the words of --export and the viewer's export prompt
 * turned into an export request's fields (see export.h): the view
 * names, --sort, --min-size, --group-by, --from/--to in milliseconds,
 * and the file names an export may take. Called by main's options and
 * ui/export_prompt.c; parses text only, never touches a profile or a
 * file, and reports a bad word by returning false. */
#include "config.h"

#include "report/export.h"

#include <stdlib.h>
#include <string.h>

/* What people type and read about exports: view names, --sort, times in
 * milliseconds, the default file name. */

/* ---- names ---- */

static const char *const view_names[EXPORT_VIEW_COUNT] = {
    [EXPORT_VIEW_ALLOCATIONS] = "allocations",
    [EXPORT_VIEW_TIMELINE] = "timeline",
    [EXPORT_VIEW_SUMMARY] = "summary",
    [EXPORT_VIEW_HLO] = "hlo",
    [EXPORT_VIEW_CHROME_TRACE] = "chrome-trace",
    [EXPORT_VIEW_COMPARE] = "compare",
    [EXPORT_VIEW_STEPS] = "steps",
    [EXPORT_VIEW_SEGMENTS] = "segments",
    [EXPORT_VIEW_XPROF_TABLE] = "xprof-table",
    [EXPORT_VIEW_SPANS] = "spans",
};

const char *export_view_name(enum export_view view)
{
    return (unsigned)view < EXPORT_VIEW_COUNT ? view_names[view] : "unknown";
}

bool export_view_parse(const char *name, enum export_view *out)
{
    for (int view = 0; view < EXPORT_VIEW_COUNT; view++) {
        if (strcmp(name, view_names[view]) == 0) {
            *out = (enum export_view)view;
            return true;
        }
    }
    return false;
}

const char *export_view_list(void)
{
    return "allocations, timeline, summary, hlo, chrome-trace, compare, steps, segments, "
           "xprof-table, spans";
}

bool export_view_is_csv(enum export_view view)
{
    return view != EXPORT_VIEW_CHROME_TRACE;
}

/* The sortable columns are named as in the allocations header (the
 * column table's csv_name; its `name` is for people). */
bool export_sort_parse(const char *text, enum table_column *column, bool *descending)
{
    const char *colon = strchr(text, ':');
    size_t name_length = colon ? (size_t)(colon - text) : strlen(text);
    enum table_column found;
    if (!allocation_column_find(text, name_length, &found) || found == TABLE_COLUMN_FILE_ORDER ||
        !allocation_column_sortable(found))
        return false;
    if (!colon) /* the direction the viewer's table sorts in first */
        *descending = allocation_table_default_descending(found);
    else if (strcmp(colon + 1, "asc") == 0)
        *descending = false;
    else if (strcmp(colon + 1, "desc") == 0)
        *descending = true;
    else
        return false;
    *column = found;
    return true;
}

/* The sortable columns' names, ", " apart: the short ones or the CSV's. */
static size_t sort_names(char *list, size_t size, bool csv)
{
    size_t used = 0;
    const struct allocation_column_info *columns = allocation_columns();
    for (size_t i = 0; i < ALLOCATION_COLUMN_COUNT && used < size; i++)
        if (columns[i].compare)
            used += (size_t)snprintf(list + used, size - used, "%s%s", used ? ", " : "",
                                     csv ? columns[i].csv_name : columns[i].name);
    return used < size ? used : size;
}

const char *export_sort_list(void)
{
    static char list[768];
    if (list[0])
        return list;
    size_t used = sort_names(list, sizeof list, false);
    used += (size_t)snprintf(list + used, sizeof list - used, "; or the CSV header's names: ");
    if (used < sizeof list)
        sort_names(list + used, sizeof list - used, true);
    return list;
}

/* ---- sizes and groups ---- */

bool export_size_parse(const char *text, int64_t *bytes)
{
    static const struct {
        const char *name;
        unsigned shift;
    } units[] = {{"", 0}, {"B", 0}, {"K", 10}, {"KiB", 10}, {"M", 20}, {"MiB", 20},
                 {"G", 30}, {"GiB", 30}};
    uint64_t value = 0;
    const char *at = text;
    for (; *at >= '0' && *at <= '9'; at++) {
        if (value > ((uint64_t)INT64_MAX - (unsigned)(*at - '0')) / 10)
            return false;
        value = value * 10 + (unsigned)(*at - '0');
    }
    if (at == text)
        return false;
    while (*at == ' ')
        at++;
    for (size_t u = 0; u < sizeof units / sizeof *units; u++) {
        if (strcmp(at, units[u].name) != 0)
            continue;
        if (value > (uint64_t)INT64_MAX >> units[u].shift)
            return false;
        *bytes = (int64_t)(value << units[u].shift);
        return true;
    }
    return false;
}

bool export_group_parse(const char *text, enum row_group_key *key, const char **scope)
{
    const char *colon = strchr(text, ':');
    size_t length = colon ? (size_t)(colon - text) : strlen(text);
    char name[32];
    if (length >= sizeof name)
        return false;
    memcpy(name, text, length);
    name[length] = '\0';
    if (!row_group_key_parse(name, key) || *key == ROW_GROUP_NONE)
        return false;
    if (colon && *key != ROW_GROUP_OP_SCOPE)
        return false; /* only a scope has levels */
    *scope = colon ? colon + 1 : "";
    return true;
}

/* ---- milliseconds ---- */

#define PICOSECONDS_PER_MILLISECOND 1000000000u
#define MILLISECOND_DIGITS 9

/* magnitude * 10 + digit, false past limit. */
static bool accumulate_digit(uint64_t *magnitude, unsigned digit, uint64_t limit)
{
    if (*magnitude > (limit - digit) / 10)
        return false;
    *magnitude = *magnitude * 10 + digit;
    return true;
}

bool export_milliseconds_parse(const char *text, int64_t *time_ps)
{
    bool negative = *text == '-';
    if (*text == '-' || *text == '+')
        text++;
    /* 2^63 is allowed for a negative value: INT64_MIN ps. */
    uint64_t limit = negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    uint64_t magnitude = 0;
    size_t digits = 0;
    for (; *text >= '0' && *text <= '9'; text++, digits++)
        if (!accumulate_digit(&magnitude, (unsigned)(*text - '0'), limit))
            return false;
    /* Whole milliseconds, then nine places of picoseconds. */
    unsigned places = 0;
    if (*text == '.') {
        for (text++; *text >= '0' && *text <= '9'; text++, digits++) {
            if (places == MILLISECOND_DIGITS) {
                if (*text != '0')
                    return false; /* finer than a picosecond */
                continue;
            }
            if (!accumulate_digit(&magnitude, (unsigned)(*text - '0'), limit))
                return false;
            places++;
        }
    }
    if (*text != '\0' || digits == 0)
        return false;
    for (; places < MILLISECOND_DIGITS; places++)
        if (!accumulate_digit(&magnitude, 0, limit))
            return false;
    *time_ps = negative ? (int64_t)(0 - magnitude) : (int64_t)magnitude;
    return true;
}

/* ---- default file name ---- */

#define DEFAULT_PATH_ID_MAX 100

static bool is_filename_safe(unsigned char byte)
{
    return (byte >= 'a' && byte <= 'z') || (byte >= 'A' && byte <= 'Z') ||
           (byte >= '0' && byte <= '9') || byte == '.' || byte == '_' || byte == '-';
}

/* A name made filename-safe into id (DEFAULT_PATH_ID_MAX + 1 bytes):
 * bytes other than [A-Za-z0-9._-] become '_', "_" for an empty name. */
static void safe_id(struct text text, char *id)
{
    size_t length = text.length < DEFAULT_PATH_ID_MAX ? text.length : DEFAULT_PATH_ID_MAX;
    for (size_t i = 0; i < length; i++)
        id[i] = is_filename_safe((unsigned char)text.bytes[i]) ? text.bytes[i] : '_';
    id[length] = '\0';
    if (length == 0)
        strcpy(id, "_");
}

char *export_default_path(const struct profile *profile, const char *host,
                          const struct allocator *allocator, enum export_view view)
{
    char host_id[DEFAULT_PATH_ID_MAX + 2] = "", id[DEFAULT_PATH_ID_MAX + 2] = "";
    if (host) {
        safe_id(text_of(host), host_id);
        strcat(host_id, "-");
    }
    if (allocator) {
        safe_id(profile_string(profile, allocator->id), id);
        strcat(id, "-");
    }
    const char *extension = export_view_is_csv(view) ? "csv" : "json";
    size_t size = sizeof "memtop-.json" + strlen(host_id) + strlen(id) +
                  strlen(export_view_name(view));
    char *path = malloc(size);
    if (!path)
        return NULL;
    snprintf(path, size, "memtop-%s%s%s.%s", host_id, id, export_view_name(view), extension);
    return path;
}
