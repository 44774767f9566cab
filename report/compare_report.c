#include "config.h"

#include "report/compare_report.h"

#include <inttypes.h>
#include <string.h>

#include "model/format.h"
#include "report/json_writer.h"

/* ---- the fields compared ---- */

static const struct compare_field fields[COMPARE_FIELD_COUNT] = {
    [COMPARE_FIELD_PEAK] = {"Peak memory usage", "Peak", "peak_bytes", true},
    [COMPARE_FIELD_HEAP] = {"  heap at the peak", "Heap", "heap_bytes", true},
    [COMPARE_FIELD_STACK] = {"  stack at the peak", "Stack", "stack_bytes", true},
    [COMPARE_FIELD_CAPACITY] = {"Memory capacity", "Cap.", "capacity_bytes", true},
    [COMPARE_FIELD_ALLOCATIONS] = {"Allocations", "Allocs", "allocations", false},
    [COMPARE_FIELD_DEALLOCATIONS] = {"Deallocations", "Frees", "deallocations", false},
};

const struct compare_field *compare_field(enum compare_field_id id)
{
    return &fields[(unsigned)id < COMPARE_FIELD_COUNT ? id : 0];
}

bool compare_field_value(enum compare_field_id id, const struct allocator *allocator,
                         int64_t *value)
{
    *value = 0;
    if (!allocator)
        return false;
    const struct allocator_summary *summary = &allocator->summary;
    switch (id) {
    case COMPARE_FIELD_PEAK: *value = summary->peak_bytes; return true;
    case COMPARE_FIELD_HEAP: *value = summary->peak.heap_bytes; return true;
    case COMPARE_FIELD_STACK:
        *value = summary->peak.stack_bytes;
        return allocator_records(allocator, ALLOCATOR_FIELD_STACK);
    case COMPARE_FIELD_CAPACITY:
        *value = summary->capacity_bytes;
        return allocator_records(allocator, ALLOCATOR_FIELD_CAPACITY);
    /* Counts are held in memory, so they fit in int64. */
    case COMPARE_FIELD_ALLOCATIONS: *value = (int64_t)summary->allocations; return true;
    case COMPARE_FIELD_DEALLOCATIONS: *value = (int64_t)summary->deallocations; return true;
    default: return false;
    }
}

bool compare_field_delta(enum compare_field_id id, const struct allocator_pair *pair,
                         int64_t *delta)
{
    int64_t base, new;
    *delta = 0;
    if (!compare_field_value(id, pair->base, &base) || !compare_field_value(id, pair->new, &new))
        return false;
    const struct allocator_delta *d = &pair->delta;
    switch (id) {
    case COMPARE_FIELD_PEAK: *delta = d->peak_bytes; break;
    case COMPARE_FIELD_HEAP: *delta = d->heap_bytes; break;
    case COMPARE_FIELD_STACK: *delta = d->stack_bytes; break;
    case COMPARE_FIELD_CAPACITY: *delta = d->capacity_bytes; break;
    case COMPARE_FIELD_ALLOCATIONS: *delta = d->allocations; break;
    default: *delta = d->deallocations; break;
    }
    return true;
}

const char *compare_pair_presence(const struct allocator_pair *pair)
{
    return pair->base && pair->new ? "both" : pair->base ? "base" : "new";
}

struct text compare_pair_id(const struct allocator_pair *pair, const struct profile *base,
                            const struct profile *new)
{
    return pair->base ? profile_string(base, pair->base->id) : profile_string(new, pair->new->id);
}

struct text compare_pair_new_id(const struct allocator_pair *pair, const struct profile *base,
                                const struct profile *new)
{
    if (!pair->base || !pair->new)
        return text_make("", 0);
    struct text base_id = profile_string(base, pair->base->id);
    struct text new_id = profile_string(new, pair->new->id);
    return text_equal(base_id, new_id) ? text_make("", 0) : new_id;
}

struct text compare_pair_label(const struct allocator_pair *pair, const struct profile *base,
                               const struct profile *new, char *buffer, size_t size)
{
    struct text pieces[3] = {compare_pair_id(pair, base, new), text_make("=", 1),
                             compare_pair_new_id(pair, base, new)};
    if (pieces[2].length == 0 || size == 0)
        return pieces[0];
    size_t length = 0;
    for (size_t i = 0; i < 3; i++) {
        size_t room = size - length, take = pieces[i].length < room ? pieces[i].length : room;
        memcpy(buffer + length, pieces[i].bytes, take);
        length += take;
    }
    return text_make(buffer, length);
}

/* ---- text ---- */

#define LABEL_WIDTH 24
#define VALUE_WIDTH 15

/* A value as people read it: bytes 1024-based, counts plain; a delta
 * signed ("+1.25 GiB", "-3"; 0 unsigned). */
static const char *text_value(const struct compare_field *field, int64_t value, bool delta,
                              char *buffer, size_t size)
{
    char number[FORMAT_BYTES_SIZE];
    if (field->is_bytes)
        format_bytes(value, number, sizeof number);
    else
        snprintf(number, sizeof number, "%" PRId64, value);
    snprintf(buffer, size, "%s%s", delta && value > 0 ? "+" : "", number);
    return buffer;
}

/* "  base  FILE: protobuf, version 1, 2 allocators" */
static void text_file_line(FILE *out, const char *role, const struct profile *profile)
{
    char path[1024];
    format_safe_text(profile->path, false, path, sizeof path);
    fprintf(out, "  %-5s %s: %s%s", role, path, profile_format_name(profile->format),
            profile->gzipped ? " (gzip)" : "");
    if (profile->version_known) /* not a trace's or XSpace's */
        fprintf(out, ", version %d", profile->version);
    fprintf(out, ", %zu allocator%s\n", profile->allocator_count,
            profile->allocator_count == 1 ? "" : "s");
}

/* ---- the largest changes, by op (or by location) ---- */

static size_t changes_top(const struct summary_report_options *options)
{
    return options ? options->top_rows : SUMMARY_REPORT_TOP_ROWS;
}

static const char *changes_key_name(enum op_comparison_key key)
{
    return key == COMPARE_BY_LOCATION ? "location" : "op";
}

/* The pair's changes as model/query/compare.h's op table sums them, by the
 * key its format records; false when memory ran out. */
static bool changes_build(struct op_comparison *table, enum op_comparison_key *key,
                          const struct allocator_pair *pair, const struct profile *base,
                          const struct profile *new)
{
    *key = op_comparison_key_for(pair->base, pair->new);
    return op_comparison_build_by(table, *key, base, pair->base, new, pair->new);
}

/* "  Largest changes by op (top 10):" then "    +1.25 GiB  aten::mm  (base .., new ..)". */
static void text_changes(FILE *out, const struct allocator_pair *pair, const struct profile *base,
                         const struct profile *new, size_t top)
{
    struct op_comparison table;
    enum op_comparison_key key;
    if (top == 0)
        return;
    if (!changes_build(&table, &key, pair, base, new)) {
        fprintf(out, "  (out of memory: no changes listed)\n");
        return;
    }
    fprintf(out, "  Largest changes by %s (top %zu):\n", changes_key_name(key), top);
    size_t listed = 0;
    for (size_t i = 0; i < table.count && listed < top; i++) {
        const struct op_delta *row = &table.rows[i];
        if (row->delta_bytes == 0)
            break; /* sorted by |delta|: the rest did not change */
        char delta[FORMAT_BYTES_SIZE + 1], from[FORMAT_BYTES_SIZE], to[FORMAT_BYTES_SIZE];
        char name[256];
        text_value(&fields[COMPARE_FIELD_PEAK], row->delta_bytes, true, delta, sizeof delta);
        format_bytes(row->base_bytes, from, sizeof from);
        format_bytes(row->new_bytes, to, sizeof to);
        format_safe_bytes(op_delta_name(row), 0, name, sizeof name);
        fprintf(out, "    %*s  %s  (base %s, new %s)\n", VALUE_WIDTH, delta, name, from, to);
        listed++;
    }
    if (listed == 0)
        fprintf(out, "    (none: the same bytes live at both peaks)\n");
    op_comparison_free(&table);
}

static void text_pair(FILE *out, const struct allocator_pair *pair, const struct profile *base,
                      const struct profile *new, size_t top)
{
    char id[256], label[512];
    format_safe_bytes(compare_pair_label(pair, base, new, label, sizeof label), 0, id, sizeof id);
    const char *only = !pair->new ? " (only in base)" : !pair->base ? " (only in new)" : "";
    fprintf(out, "\n%s%s\n  %-*s %*s %*s %*s\n", id, only, LABEL_WIDTH, "", VALUE_WIDTH, "base",
            VALUE_WIDTH, "new", VALUE_WIDTH, "delta");
    for (int f = 0; f < COMPARE_FIELD_COUNT; f++) {
        const struct compare_field *field = &fields[f];
        const struct allocator *sides[2] = {pair->base, pair->new};
        char cells[3][48];
        for (int side = 0; side < 2; side++) {
            int64_t value;
            if (compare_field_value((enum compare_field_id)f, sides[side], &value))
                text_value(field, value, false, cells[side], sizeof cells[side]);
            else
                snprintf(cells[side], sizeof cells[side], "%s", sides[side] ? "unknown" : "-");
        }
        int64_t delta;
        if (compare_field_delta((enum compare_field_id)f, pair, &delta))
            text_value(field, delta, true, cells[2], sizeof cells[2]);
        else
            snprintf(cells[2], sizeof cells[2], "-");
        fprintf(out, "  %-*s %*s %*s %*s\n", LABEL_WIDTH, field->label, VALUE_WIDTH, cells[0],
                VALUE_WIDTH, cells[1], VALUE_WIDTH, cells[2]);
    }
    if ((pair->base && pair->base->timeline_sampled) || (pair->new && pair->new->timeline_sampled))
        fprintf(out, "  (a sampled timeline: its counts are of XProf's sample)\n");
    text_changes(out, pair, base, new, top);
}

void compare_report_text(FILE *out, const struct profile *base, const struct profile *new,
                         const struct profile_comparison *comparison,
                         const struct summary_report_options *options)
{
    fprintf(out, "Two profiles compared (delta: new minus base)\n");
    text_file_line(out, "base", base);
    text_file_line(out, "new", new);
    for (size_t i = 0; i < comparison->count; i++)
        text_pair(out, &comparison->pairs[i], base, new, changes_top(options));
}

/* ---- JSON ---- */

/* What a JSON member of a pair holds: one side's values, or the deltas. */
enum json_values { JSON_BASE, JSON_NEW, JSON_DELTA };

static bool json_value(enum compare_field_id id, const struct allocator_pair *pair,
                       enum json_values which, int64_t *value)
{
    if (which == JSON_DELTA)
        return compare_field_delta(id, pair, value);
    return compare_field_value(id, which == JSON_BASE ? pair->base : pair->new, value);
}

/* {"peak_bytes":N,...}: one side's (null for a field its format does not
 * record) or the deltas (null unless both sides record it); null for a
 * side the allocator is missing from, and for its deltas. */
static void json_values(struct json_writer *writer, const char *name,
                        const struct allocator_pair *pair, enum json_values which)
{
    json_writer_key(writer, name);
    bool present = which == JSON_BASE ? pair->base != NULL
                   : which == JSON_NEW ? pair->new != NULL
                                       : pair->base && pair->new;
    if (!present) {
        json_writer_null(writer);
        return;
    }
    json_writer_object_begin(writer);
    for (int f = 0; f < COMPARE_FIELD_COUNT; f++) {
        int64_t value;
        json_writer_key(writer, fields[f].json_name);
        if (json_value((enum compare_field_id)f, pair, which, &value))
            json_writer_int(writer, value);
        else
            json_writer_null(writer);
    }
    json_writer_object_end(writer);
}

/* "changes_by":"op","changes":[{"key":..,"base_bytes":..,"new_bytes":..,"delta_bytes":..}]:
 * the top rows of the op table whose delta is not 0. */
static void json_changes(struct json_writer *writer, const struct allocator_pair *pair,
                         const struct profile *base, const struct profile *new, size_t top)
{
    struct op_comparison table;
    enum op_comparison_key key;
    bool built = changes_build(&table, &key, pair, base, new);
    json_writer_member_string(writer, "changes_by", changes_key_name(key));
    json_writer_key(writer, "changes");
    json_writer_array_begin(writer);
    for (size_t i = 0; built && i < table.count && i < top; i++) {
        const struct op_delta *row = &table.rows[i];
        if (row->delta_bytes == 0)
            break;
        json_writer_object_begin(writer);
        json_writer_member_bytes(writer, "key", op_delta_name(row));
        json_writer_key(writer, "base_bytes");
        json_writer_int(writer, row->base_bytes);
        json_writer_key(writer, "new_bytes");
        json_writer_int(writer, row->new_bytes);
        json_writer_key(writer, "delta_bytes");
        json_writer_int(writer, row->delta_bytes);
        json_writer_object_end(writer);
    }
    json_writer_array_end(writer);
    if (built)
        op_comparison_free(&table);
}

static void json_pair(struct json_writer *writer, const struct allocator_pair *pair,
                      const struct profile *base, const struct profile *new, size_t top)
{
    json_writer_object_begin(writer);
    json_writer_member_bytes(writer, "id", compare_pair_id(pair, base, new));
    struct text new_id = compare_pair_new_id(pair, base, new);
    if (new_id.length > 0) /* --pair: the new side's name */
        json_writer_member_bytes(writer, "new_id", new_id);
    json_writer_member_string(writer, "in", compare_pair_presence(pair));
    json_values(writer, "base", pair, JSON_BASE);
    json_values(writer, "new", pair, JSON_NEW);
    json_values(writer, "delta", pair, JSON_DELTA);
    json_changes(writer, pair, base, new, top);
    json_writer_object_end(writer);
}

void compare_report_json_to(struct json_writer *writer, const struct profile *base,
                            const struct profile *new, const struct profile_comparison *comparison,
                            const struct summary_report_options *options)
{
    json_writer_object_begin(writer);
    json_writer_key(writer, "base");
    summary_report_json_to(writer, base, NULL, options);
    json_writer_key(writer, "new");
    summary_report_json_to(writer, new, NULL, options);
    json_writer_key(writer, "allocators");
    json_writer_array_begin(writer);
    for (size_t i = 0; i < comparison->count; i++)
        json_pair(writer, &comparison->pairs[i], base, new, changes_top(options));
    json_writer_array_end(writer);
    json_writer_object_end(writer);
}
