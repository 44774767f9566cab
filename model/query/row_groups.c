#include "config.h"

#include "model/query/row_groups.h"

#include <stdlib.h>
#include <string.h>

#include "model/query/allocation_table.h"
#include "model/util/index_sort.h"
#include "model/util/saturating.h"

/* ---- keys ---- */

static const char *const key_names[ROW_GROUP_KEY_COUNT] = {
    [ROW_GROUP_NONE] = "none",
    [ROW_GROUP_OP_SCOPE] = "scope",
    [ROW_GROUP_LOCATION] = "location",
    [ROW_GROUP_FILE] = "file",
    [ROW_GROUP_OP] = "op",
    [ROW_GROUP_MODULE] = "module",
    [ROW_GROUP_FUNCTION] = "function",
};

const char *row_group_key_name(enum row_group_key key)
{
    return (unsigned)key < ROW_GROUP_KEY_COUNT ? key_names[key] : "";
}

bool row_group_key_parse(const char *name, enum row_group_key *key)
{
    for (int k = 0; k < ROW_GROUP_KEY_COUNT; k++) {
        if (strcmp(name, key_names[k]) == 0) {
            *key = (enum row_group_key)k;
            return true;
        }
    }
    return false;
}

const char *row_group_key_list(void)
{
    return "scope, op, module, location, file, function";
}

size_t row_group_scope_up(struct text scope)
{
    size_t length = scope.length;
    if (length > 0 && scope.bytes[length - 1] == '/')
        length--; /* its own closing slash */
    while (length > 0 && scope.bytes[length - 1] != '/')
        length--;
    return length;
}

static bool text_starts_with(struct text text, struct text start)
{
    return text.length >= start.length &&
           (start.length == 0 || memcmp(text.bytes, start.bytes, start.length) == 0);
}

/* The function of a row's location: what follows "file:line " in it
 * ("step" in "torch_trace.py:15 step"); empty for a location without
 * one (Skyline's "file:line"). */
static struct text row_function(const struct profile *profile, const struct allocation_row *row)
{
    struct text location = profile_string(profile, row->location);
    struct text file = profile_string(profile, row->location_file);
    if (file.length == 0 || !text_starts_with(location, file))
        return text_of("");
    size_t at = file.length;
    if (at < location.length && location.bytes[at] == ':') {
        at++;
        while (at < location.length && location.bytes[at] >= '0' && location.bytes[at] <= '9')
            at++;
    }
    if (at >= location.length || location.bytes[at] != ' ')
        return text_of("");
    return text_make(location.bytes + at + 1, location.length - at - 1);
}

/* The text of a row that a group other than a scope is keyed by. */
static struct text row_key_text(const struct profile *profile, enum row_group_key key,
                                const struct allocation_row *row)
{
    switch (key) {
    case ROW_GROUP_OP: return profile_string(profile, row->op_name);
    case ROW_GROUP_MODULE: return profile_string(profile, row->module);
    case ROW_GROUP_FILE: return profile_string(profile, row->location_file);
    case ROW_GROUP_FUNCTION: return row_function(profile, row);
    default: return profile_string(profile, row->location);
    }
}

bool row_group_key_recorded(const struct allocation_table *table, enum row_group_key key)
{
    switch (key) {
    case ROW_GROUP_MODULE: return allocation_table_column_filled(table, TABLE_COLUMN_MODULE);
    case ROW_GROUP_LOCATION:
    case ROW_GROUP_FILE: return allocation_table_column_filled(table, TABLE_COLUMN_LOCATION);
    case ROW_GROUP_FUNCTION:
        for (size_t i = 0; i < table->source.count; i++)
            if (row_function(table->profile, &table->source.rows[i]).length > 0)
                return true;
        return false;
    default: return (unsigned)key < ROW_GROUP_KEY_COUNT;
    }
}

const char *row_group_empty_name(enum row_group_key key)
{
    switch (key) {
    case ROW_GROUP_MODULE: return "(no module)";
    case ROW_GROUP_FUNCTION: return "(no function: no frame in the user's code)";
    case ROW_GROUP_OP: return "(no op)";
    default: return "(no location: no frame in the user's code)";
    }
}

bool row_group_contains(const struct profile *profile, enum row_group_key key, struct text name,
                        const struct allocation_row *row)
{
    switch (key) {
    case ROW_GROUP_OP_SCOPE:
        /* An unresolved row has no name, so it is in no scope but the top. */
        if (row->origin == ROW_UNRESOLVED)
            return name.length == 0;
        /* A scope ("model/dense_58/") holds what starts with it; an op's
         * own group ("aten::mm", issue 22) that op's rows alone. */
        if (name.length > 0 && name.bytes[name.length - 1] != '/')
            return text_equal(profile_string(profile, row->op_name), name);
        return text_starts_with(profile_string(profile, row->op_name), name);
    case ROW_GROUP_OP:
        if (row->origin == ROW_UNRESOLVED) /* no name: in the nameless group */
            return name.length == 0;
        return text_equal(profile_string(profile, row->op_name), name);
    case ROW_GROUP_MODULE:
    case ROW_GROUP_LOCATION:
    case ROW_GROUP_FILE:
    case ROW_GROUP_FUNCTION: return text_equal(row_key_text(profile, key, row), name);
    default: return true;
    }
}

/* ---- one row's group ---- */

/* What a row is grouped by: a slice of a profile string. */
struct row_key {
    const char *text;
    size_t length;
    bool single_row;
    /* A row that is its group's whole key already (an unresolved row; a
     * row inside its own op's open group): never merged with others. */
    bool alone;
};

/* The row's group under `scope`; false when the row is not under it. */
static bool row_key_of(const struct profile *profile, enum row_group_key key, struct text scope,
                       const struct allocation_row *row, struct row_key *out)
{
    if (key != ROW_GROUP_OP_SCOPE) {
        struct text text = row_key_text(profile, key, row);
        if (key == ROW_GROUP_OP && row->origin == ROW_UNRESOLVED)
            text = text_of("");
        *out = (struct row_key){text.bytes, text.length, false, false};
        return true;
    }
    if (row->origin == ROW_UNRESOLVED) {
        *out = (struct row_key){"", 0, true, true};
        return scope.length == 0;
    }
    struct text name = profile_string(profile, row->op_name);
    if (!text_starts_with(name, scope))
        return false;
    const char *slash = memchr(name.bytes + scope.length, '/', name.length - scope.length);
    out->text = name.bytes;
    out->length = slash ? (size_t)(slash - name.bytes) + 1 : name.length;
    out->single_row = slash == NULL;
    out->alone = slash == NULL && name.length == scope.length;
    return true;
}

/* ---- grouping ---- */

struct keyed_rows {
    const struct row_key *keys;
};

static int compare_slices(const char *a, size_t a_length, const char *b, size_t b_length)
{
    int order = memcmp(a, b, a_length < b_length ? a_length : b_length);
    if (order != 0)
        return order;
    return (a_length > b_length) - (a_length < b_length);
}

/* Rows with equal keys together (single rows after the groups of the
 * same text, each alone); the table's order among equals (stable). */
static bool key_before(const void *context, size_t a, size_t b)
{
    const struct row_key *x = &((const struct keyed_rows *)context)->keys[a];
    const struct row_key *y = &((const struct keyed_rows *)context)->keys[b];
    int order = compare_slices(x->text, x->length, y->text, y->length);
    return order != 0 ? order < 0 : !x->single_row && y->single_row;
}

static bool group_before(const void *context, size_t a, size_t b)
{
    const struct row_group *x = &((const struct row_group *)context)[a];
    const struct row_group *y = &((const struct row_group *)context)[b];
    if (x->bytes != y->bytes)
        return x->bytes > y->bytes;
    int order = compare_slices(x->name, x->name_length, y->name, y->name_length);
    return order != 0 ? order < 0 : x->first_position < y->first_position;
}

/* Runs of equal keys in `order` (table positions sorted by key) become
 * groups; rows of an op without a deeper scope are one group of that
 * op's name when there are several (issue 22: no key repeats), a single
 * row when alone; returns how many. */
static size_t groups_from_runs(const struct allocation_table *table, const struct row_key *keys,
                               const size_t *order, size_t count, struct row_group *groups)
{
    size_t group_count = 0;
    const struct row_key *last_key = NULL;
    for (size_t i = 0; i < count; i++) {
        const struct row_key *key = &keys[order[i]];
        struct row_group *last = group_count ? &groups[group_count - 1] : NULL;
        if (!last || key->alone || last_key->alone || key->single_row != last_key->single_row ||
            compare_slices(last->name, last->name_length, key->text, key->length) != 0) {
            groups[group_count++] = (struct row_group){
                .name = key->text, .name_length = key->length, .single_row = key->single_row,
                .first_position = order[i]};
            last = &groups[group_count - 1];
            last_key = key;
        } else if (key->single_row) {
            last->single_row = false; /* a second row of the op: its group */
        }
        const struct allocation_row *row = allocation_table_row(table, order[i]);
        last->row_count++; /* its first row came first: the sort is stable */
        if (!allocation_row_is_uncounted(row))
            last->bytes = saturating_add(last->bytes, allocation_row_bytes(row));
    }
    return group_count;
}

/* Each shown row's key into keys (by table position); the positions of
 * the rows under the scope into positions; returns how many. */
static size_t keys_of_rows(const struct allocation_table *table, enum row_group_key key,
                           struct text scope, struct row_key *keys, size_t *positions)
{
    size_t kept = 0;
    for (size_t p = 0; p < table->count; p++)
        if (row_key_of(table->profile, key, scope, allocation_table_row(table, p), &keys[p]))
            positions[kept++] = p;
    return kept;
}

/* Sorts the groups largest first into groups->groups; false when memory
 * runs out. */
static bool groups_by_size(struct row_groups *groups, struct row_group *found, size_t count,
                           size_t *order, size_t *scratch)
{
    for (size_t i = 0; i < count; i++)
        order[i] = i;
    index_sort_stable(order, scratch, count, group_before, found);
    groups->groups = malloc((count ? count : 1) * sizeof *groups->groups);
    if (!groups->groups)
        return false;
    for (size_t i = 0; i < count; i++) {
        groups->groups[i] = found[order[i]];
        groups->groups[i].key = groups->key;
        groups->total_bytes = saturating_add(groups->total_bytes, found[order[i]].bytes);
        groups->group_count += !found[order[i]].single_row;
    }
    groups->count = count;
    return true;
}

bool row_groups_build(struct row_groups *groups, const struct allocation_table *table,
                      enum row_group_key key, struct text scope)
{
    memset(groups, 0, sizeof *groups);
    groups->key = key;
    size_t count = table->count;
    if (key == ROW_GROUP_NONE || count == 0)
        return true;
    struct row_key *keys = malloc(count * sizeof *keys);
    size_t *order = malloc(count * sizeof *order);
    size_t *scratch = malloc(count * sizeof *scratch);
    struct row_group *found = malloc(count * sizeof *found);
    bool ok = keys && order && scratch && found;
    if (ok) {
        size_t kept = keys_of_rows(table, key, scope, keys, order);
        struct keyed_rows by_key = {keys};
        index_sort_stable(order, scratch, kept, key_before, &by_key);
        size_t found_count = groups_from_runs(table, keys, order, kept, found);
        ok = groups_by_size(groups, found, found_count, order, scratch);
    }
    if (!ok)
        row_groups_free(groups);
    groups->key = key;
    free(keys);
    free(order);
    free(scratch);
    free(found);
    return ok;
}

void row_groups_free(struct row_groups *groups)
{
    free(groups->groups);
    memset(groups, 0, sizeof *groups);
}
