#include "config.h"

#include "tests/formats/xspace/xspace_expect.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- records ---- */

struct token {
    const char *bytes; /* into the record's buffer */
    size_t length;
};

/* One line: a keyword and its tokens, %XX undone, in a buffer as long as
 * the line. */
struct record {
    int line;
    char keyword[32];
    size_t count; /* tokens after the keyword */
    struct token *tokens;
    char *buffer;
};


/* XProf's table's length (issue 22: kept beside the live set). */
static size_t xprof_row_count(const struct allocator *allocator)
{
    size_t count = 0;
    allocator_xprof_rows(allocator, &count);
    return count;
}
static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* One token [start, end) with %XX undone into *out; "" is the empty string. */
static struct token token_read(const char *start, const char *end, char **out)
{
    struct token token = {*out, 0};
    if (end - start == 2 && start[0] == '"' && start[1] == '"')
        return token;
    for (const char *p = start; p < end; p++) {
        if (*p == '%' && end - p >= 3 && hex_digit(p[1]) >= 0 && hex_digit(p[2]) >= 0) {
            (*out)[token.length++] = (char)(hex_digit(p[1]) * 16 + hex_digit(p[2]));
            p += 2;
        } else {
            (*out)[token.length++] = *p;
        }
    }
    *out += token.length;
    return token;
}

static void record_free(struct record *record)
{
    free(record->tokens);
    free(record->buffer);
    record->tokens = NULL;
    record->buffer = NULL;
}

/* The record on the line [start, end); false for a comment or an empty line. */
static bool record_read(const char *start, const char *end, int line, struct record *record)
{
    if (start == end || *start == '#')
        return false;
    record_free(record);
    size_t size = (size_t)(end - start);
    record->tokens = malloc((size / 2 + 1) * sizeof *record->tokens);
    record->buffer = malloc(size + 1);
    if (!record->tokens || !record->buffer)
        abort();
    record->line = line;
    record->count = 0;
    const char *space = memchr(start, ' ', size);
    const char *word_end = space ? space : end;
    size_t length = (size_t)(word_end - start);
    if (length >= sizeof record->keyword)
        length = sizeof record->keyword - 1;
    memcpy(record->keyword, start, length);
    record->keyword[length] = '\0';
    char *out = record->buffer;
    for (const char *word = space ? space + 1 : end; word < end;) {
        space = memchr(word, ' ', (size_t)(end - word));
        word_end = space ? space : end;
        record->tokens[record->count++] = token_read(word, word_end, &out);
        word = space ? space + 1 : end;
    }
    return true;
}

/* ---- checking ---- */

struct check {
    const struct profile *profile;
    const struct allocator *allocator;
    size_t allocator_index;
    size_t row;
    size_t hlo;
    char *message;
    size_t size;
    bool failed;
};

static bool fail(struct check *check, const struct record *record, const char *format, ...)
{
    if (check->failed)
        return false;
    int used = snprintf(check->message, check->size, "line %d (%s): ", record->line,
                        record->keyword);
    va_list arguments;
    va_start(arguments, format);
    if (used > 0 && (size_t)used < check->size)
        vsnprintf(check->message + used, check->size - (size_t)used, format, arguments);
    va_end(arguments);
    check->failed = true;
    return false;
}

static int64_t token_int(const struct record *record, size_t index)
{
    if (index >= record->count)
        return INT64_MIN;
    char text[64];
    size_t length = record->tokens[index].length < 63 ? record->tokens[index].length : 63;
    memcpy(text, record->tokens[index].bytes, length);
    text[length] = '\0';
    return strtoll(text, NULL, 10);
}

static bool same_text(const struct profile *profile, uint32_t id, const struct token *token)
{
    return string_table_length(profile->strings, id) == token->length &&
           memcmp(profile_text(profile, id), token->bytes, token->length) == 0;
}

static bool check_int(struct check *check, const struct record *record, int64_t actual)
{
    int64_t expected = token_int(record, 0);
    if (expected == actual)
        return true;
    return fail(check, record, "expected %" PRId64 ", memtop has %" PRId64, expected, actual);
}

/* The step of the latest snapshot at the peak (XProf's peak step). */
static int64_t peak_step(const struct allocator *allocator)
{
    const struct snapshot_columns *timeline = &allocator->timeline;
    int64_t step = 0;
    for (size_t i = 0; i < timeline->count; i++)
        if ((int64_t)((uint64_t)timeline->stack_bytes[i] + (uint64_t)timeline->heap_bytes[i]) ==
            allocator->summary.peak.peak_bytes_in_use)
            step = timeline->step_id[i];
    return step;
}

static bool check_steps(struct check *check, const struct record *record)
{
    const struct snapshot_columns *timeline = &check->allocator->timeline;
    size_t runs = 0, i = 0;
    while (i < timeline->count) {
        size_t end = i;
        while (end < timeline->count && timeline->step_id[end] == timeline->step_id[i])
            end++;
        if (1 + runs >= record->count)
            return fail(check, record, "memtop has more step runs than expected");
        const struct token *token = &record->tokens[1 + runs];
        char run[64];
        snprintf(run, sizeof run, "%" PRId64 "*%zu", timeline->step_id[i], end - i);
        if (token->length != strlen(run) || memcmp(token->bytes, run, token->length) != 0)
            return fail(check, record, "run %zu: expected %.*s, memtop has %s", runs,
                        (int)token->length, token->bytes, run);
        runs++;
        i = end;
    }
    if ((int64_t)runs != token_int(record, 0))
        return fail(check, record, "expected %" PRId64 " runs, memtop has %zu",
                    token_int(record, 0), runs);
    return true;
}

static bool check_fnv(struct check *check, const struct record *record)
{
    const struct snapshot_columns *timeline = &check->allocator->timeline;
    uint64_t hash = UINT64_C(14695981039346656037);
    for (size_t i = 0; i < timeline->count; i++) {
        char text[32];
        int length = snprintf(text, sizeof text, "%" PRId64 "\n", timeline->step_id[i]);
        for (int k = 0; k < length; k++)
            hash = (hash ^ (uint8_t)text[k]) * UINT64_C(1099511628211);
    }
    char hex[17];
    snprintf(hex, sizeof hex, "%016" PRIx64, hash);
    if (record->count < 1 || record->tokens[0].length != 16 ||
        memcmp(record->tokens[0].bytes, hex, 16) != 0)
        return fail(check, record, "memtop's steps hash to %s", hex);
    return true;
}

static bool check_row(struct check *check, const struct record *record)
{
    const struct allocator *allocator = check->allocator;
    /* The oracle simulates XProf's table: memtop keeps it as xprof_rows
     * beside the live set (issue 22). */
    size_t row_count = 0;
    const struct allocation_row *rows = allocator_xprof_rows(allocator, &row_count);
    if (check->row >= row_count)
        return fail(check, record, "memtop has only %zu rows", row_count);
    const struct allocation_row *row = &rows[check->row++];
    const struct profile *profile = check->profile;
    if (record->count != 7 || !same_text(profile, row->op_name, &record->tokens[0]) ||
        token_int(record, 1) != row->allocation_bytes ||
        token_int(record, 2) != row->requested_bytes || token_int(record, 3) != row->occurrences ||
        !same_text(profile, row->region_type, &record->tokens[4]) ||
        !same_text(profile, row->data_type, &record->tokens[5]) ||
        !same_text(profile, row->tensor_shape, &record->tokens[6]))
        return fail(check, record,
                    "row %zu differs: memtop has %s %" PRId64 " %" PRId64 " x%" PRId64
                    " %s %s %s", check->row - 1, profile_text(profile, row->op_name),
                    row->allocation_bytes, row->requested_bytes, row->occurrences,
                    profile_text(profile, row->region_type), profile_text(profile, row->data_type),
                    profile_text(profile, row->tensor_shape));
    return true;
}

static size_t tpu_modules(const struct profile *profile)
{
    size_t count = 0;
    for (size_t i = 0; i < profile->hlo_module_count; i++)
        count += strncmp(profile_text(profile, profile->hlo_modules[i].plane_name), "TPU:", 4) == 0;
    return count;
}

static bool check_hlo(struct check *check, const struct record *record)
{
    const struct profile *profile = check->profile;
    if (check->hlo >= profile->hlo_module_count)
        return fail(check, record, "memtop has only %zu HLO modules", profile->hlo_module_count);
    const struct hlo_module *module = &profile->hlo_modules[check->hlo++];
    if (record->count != 5 || token_int(record, 0) != module->id ||
        !same_text(profile, module->name, &record->tokens[1]) ||
        !same_text(profile, module->plane_name, &record->tokens[2]) ||
        token_int(record, 3) != module->start_time_ps ||
        token_int(record, 4) != module->end_time_ps)
        return fail(check, record, "memtop has %" PRId64 " %s %s %" PRId64 " %" PRId64, module->id,
                    profile_text(profile, module->name), profile_text(profile, module->plane_name),
                    module->start_time_ps, module->end_time_ps);
    return true;
}

static bool check_memory_ids(struct check *check, const struct record *record)
{
    const struct profile *profile = check->profile;
    if (token_int(record, 0) != (int64_t)profile->allocator_count)
        return fail(check, record, "memtop has %zu allocators", profile->allocator_count);
    for (size_t i = 0; i < profile->allocator_count && i + 1 < record->count; i++)
        if (!same_text(profile, profile->allocators[i].id, &record->tokens[i + 1]))
            return fail(check, record, "allocator %zu is %s in memtop", i,
                        profile_text(profile, profile->allocators[i].id));
    return true;
}

static bool check_allocator(struct check *check, const struct record *record)
{
    const struct profile *profile = check->profile;
    if (check->allocator_index >= profile->allocator_count || record->count != 1 ||
        !same_text(profile, profile->allocators[check->allocator_index].id, &record->tokens[0]))
        return fail(check, record, "not memtop's allocator %zu", check->allocator_index);
    check->allocator = &profile->allocators[check->allocator_index++];
    check->row = 0;
    return true;
}

static bool check_summary(struct check *check, const struct record *record)
{
    const struct allocator *allocator = check->allocator;
    const struct allocator_summary *summary = &allocator->summary;
    static const char *const names[] = {
        "snapshots", "allocations", "deallocations", "memory_capacity",
        "peak_bytes_usage_lifetime", "peak_bytes_in_use", "peak_stats_time_ps",
        "stack_reserved_bytes", "heap_allocated_bytes", "free_memory_bytes", "peak_step", "rows",
    };
    int64_t values[] = {
        (int64_t)allocator->timeline.count, (int64_t)summary->allocations,
        (int64_t)summary->deallocations, summary->capacity_bytes, summary->lifetime_peak_bytes,
        summary->peak.peak_bytes_in_use, summary->peak_time_ps, summary->peak.stack_bytes,
        summary->peak.heap_bytes, summary->peak.free_bytes, peak_step(allocator),
        (int64_t)xprof_row_count(allocator),
    };
    /* The step the loader keeps for its rows (the viewer's title names it). */
    if (strcmp(record->keyword, "peak_step") == 0) {
        if (!summary->one_step_rows)
            return fail(check, record, "memtop keeps no peak step");
        if (!check_int(check, record, summary->rows_step))
            return false;
    }
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(record->keyword, names[i]) == 0)
            return check_int(check, record, values[i]);
    if (strcmp(record->keyword, "fragmentation") == 0) {
        char text[64];
        size_t length = record->count ? record->tokens[0].length : 0;
        memcpy(text, record->count ? record->tokens[0].bytes : "", length < 63 ? length : 63);
        text[length < 63 ? length : 63] = '\0';
        if (strtod(text, NULL) != summary->peak.fragmentation)
            return fail(check, record, "memtop has %.17g", summary->peak.fragmentation);
        return true;
    }
    return fail(check, record, "unknown record");
}

static bool check_record(struct check *check, const struct record *record)
{
    const char *key = record->keyword;
    const struct profile *profile = check->profile;
    if (strcmp(key, "xspace_expect") == 0)
        return token_int(record, 0) == 1 || fail(check, record, "unknown version");
    if (strcmp(key, "num_hosts") == 0)
        return check_int(check, record, profile->num_hosts);
    if (strcmp(key, "version") == 0)
        return check_int(check, record, profile->version);
    if (strcmp(key, "step_grouping") == 0 || strcmp(key, "step_groups") == 0 ||
        strcmp(key, "end") == 0)
        return true;
    if (strcmp(key, "memory_ids") == 0)
        return check_memory_ids(check, record);
    if (strcmp(key, "allocator") == 0)
        return check_allocator(check, record);
    if (strcmp(key, "hlo_modules") == 0)
        return check_int(check, record, (int64_t)tpu_modules(profile));
    if (strcmp(key, "hlo") == 0)
        return check_hlo(check, record);
    if (!check->allocator)
        return fail(check, record, "outside an allocator");
    if (strcmp(key, "steps") == 0)
        return check_steps(check, record);
    if (strcmp(key, "steps_fnv1a64") == 0)
        return check_fnv(check, record);
    if (strcmp(key, "row") == 0)
        return check_row(check, record);
    if (strcmp(key, "end_allocator") == 0) {
        size_t rows = xprof_row_count(check->allocator);
        bool ok = check->row == rows || fail(check, record, "memtop has %zu rows", rows);
        check->allocator = NULL;
        return ok;
    }
    return check_summary(check, record);
}

bool xspace_expect_check(const struct profile *profile, const char *text, size_t size,
                         char *message, size_t message_size)
{
    struct check check = {.profile = profile, .message = message, .size = message_size};
    struct record record = {0};
    message[0] = '\0';
    int line = 1;
    for (const char *start = text, *end = text + size; start < end && !check.failed; line++) {
        const char *newline = memchr(start, '\n', (size_t)(end - start));
        const char *stop = newline ? newline : end;
        if (record_read(start, stop, line, &record))
            check_record(&check, &record);
        start = newline ? newline + 1 : end;
    }
    record_free(&record);
    if (!check.failed && check.allocator_index != profile->allocator_count)
        snprintf(message, message_size, "memtop has %zu allocators, the file %zu",
                 profile->allocator_count, check.allocator_index);
    return !check.failed && check.allocator_index == profile->allocator_count;
}

long xspace_expect_step_groups(const char *text, size_t size)
{
    const char *key = "\nstep_groups ";
    for (const char *p = text; p + strlen(key) < text + size; p++)
        if (memcmp(p, key, strlen(key)) == 0)
            return strtol(p + strlen(key), NULL, 10);
    return -1;
}
