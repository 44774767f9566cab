/* trace_expect: checks what memtop reports for a generated Chrome trace
 * against what tests/generate_trace --expect computed for it on its own.
 *
 *     trace_expect EXPECT DIR
 *
 * DIR holds memtop's outputs for the trace (tests/test_trace_cli.sh makes
 * them): summary.json (--summary --json), stderr (its warnings),
 * trace.json (--export chrome-trace: each snapshot's context, which no
 * CSV has), and per allocator I of the expect file timeline-I.csv and
 * allocations-I.csv (--export timeline / allocations --allocator ID).
 * The expect format is the generator's (see its --help): this program
 * rebuilds every "allocator", "row", "snapshot" and "oom" line from
 * memtop's outputs, escaped the same way, and compares them line by line
 * (lines the expect file elides are compared through the timeline hash,
 * FNV-1a 64 over every snapshot line). Independent of memtop's model:
 * it reads only text memtop wrote. Prints what differs; exit status 0
 * when nothing does, 1 otherwise, 2 on bad usage or unreadable files. */
#include "config.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE_MAX_BYTES (1 << 16)

static int failures;

static void fail(const char *what, const char *got, const char *want)
{
    if (failures++ < 20)
        fprintf(stderr, "trace_expect: %s\n  got:  %s\n  want: %s\n", what, got, want);
}

static char *read_file(const char *path, size_t *size)
{
    FILE *file = fopen(path, "rb");
    if (!file)
        return NULL;
    size_t capacity = 1 << 16, used = 0;
    char *text = malloc(capacity + 1);
    size_t got;
    while (text && (got = fread(text + used, 1, capacity - used, file)) > 0) {
        used += got;
        if (used == capacity) {
            char *grown = realloc(text, capacity * 2 + 1);
            if (!grown) {
                free(text);
                text = NULL;
            }
            text = grown;
            capacity *= 2;
        }
    }
    fclose(file);
    if (text)
        text[used] = '\0';
    if (size)
        *size = used;
    return text;
}

/* ---- the expect file's escaping ---- */

/* Appends [bytes, bytes+length) escaped as the generator escapes. */
static void escape_append(char *out, size_t size, const char *bytes, size_t length)
{
    size_t used = strlen(out);
    for (size_t i = 0; i < length && used + 5 < size; i++) {
        unsigned char byte = (unsigned char)bytes[i];
        if (byte == '\\')
            used += (size_t)snprintf(out + used, size - used, "\\\\");
        else if (byte < 0x20 || byte > 0x7e)
            used += (size_t)snprintf(out + used, size - used, "\\x%02x", byte);
        else
            out[used++] = (char)byte, out[used] = '\0';
    }
}

static void field_append(char *out, size_t size, const char *text)
{
    size_t used = strlen(out);
    if (used + 1 < size)
        out[used] = '\t', out[used + 1] = '\0';
    escape_append(out, size, text, strlen(text));
}

/* ---- CSV, as memtop writes it (report/csv_writer.h) ---- */

struct csv_row {
    char **fields;
    size_t count;
};

/* One record from *text (moved past it); false at the end. Quotes
 * honoured, the formula guard's apostrophe dropped. */
static bool csv_next(const char **text, struct csv_row *row)
{
    const char *at = *text;
    if (!*at)
        return false;
    row->count = 0;
    row->fields = NULL;
    for (;;) {
        char *field = malloc(strlen(at) + 1);
        size_t used = 0;
        bool quoted = *at == '"';
        if (quoted) {
            for (at++; *at && !(at[0] == '"' && at[1] != '"'); at++) {
                if (at[0] == '"')
                    at++;
                field[used++] = *at;
            }
            if (*at)
                at++;
        } else {
            while (*at && *at != ',' && *at != '\n')
                field[used++] = *at++;
        }
        field[used] = '\0';
        if (field[0] == '\'' && (size_t)strspn(field, "'") < used &&
            strchr("=+-@\t\r", field[strspn(field, "'")]))
            memmove(field, field + 1, used);
        row->fields = realloc(row->fields, (row->count + 1) * sizeof *row->fields);
        row->fields[row->count++] = field;
        if (*at == ',') {
            at++;
            continue;
        }
        if (*at == '\n')
            at++;
        break;
    }
    *text = at;
    return true;
}

static void csv_free(struct csv_row *row)
{
    for (size_t i = 0; i < row->count; i++)
        free(row->fields[i]);
    free(row->fields);
}

/* ---- the expect file ---- */

struct expect {
    char **lines;
    size_t count;
};

static bool expect_read(const char *path, struct expect *expect)
{
    char *text = read_file(path, NULL);
    if (!text)
        return false;
    expect->lines = NULL;
    expect->count = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        expect->lines = realloc(expect->lines, (expect->count + 1) * sizeof *expect->lines);
        expect->lines[expect->count++] = strdup(line);
    }
    free(text);
    return true;
}

/* Field `n` (0 first) of a tab-separated line, into out. */
static void tab_field(const char *line, int n, char *out, size_t size)
{
    for (; n > 0 && line; n--) {
        line = strchr(line, '\t');
        if (line)
            line++;
    }
    size_t length = line ? strcspn(line, "\t") : 0;
    if (length >= size)
        length = size - 1;
    memcpy(out, line ? line : "", length);
    out[length] = '\0';
}

static bool starts_with(const char *line, const char *prefix)
{
    return strncmp(line, prefix, strlen(prefix)) == 0;
}

/* The expect lines that start with `prefix` (e.g. "row\t0\t"), in order. */
static size_t expect_lines(const struct expect *expect, const char *prefix, const char ***out)
{
    size_t count = 0;
    *out = malloc((expect->count + 1) * sizeof **out);
    for (size_t i = 0; i < expect->count; i++)
        if (starts_with(expect->lines[i], prefix))
            (*out)[count++] = expect->lines[i];
    return count;
}

static uint64_t fnv1a(uint64_t hash, const char *text)
{
    for (; *text; text++) {
        hash ^= (unsigned char)*text;
        hash *= 0x100000001b3u;
    }
    return hash;
}

/* A string of the chrome-trace export: its _hex bytes when it has them. */
static const char *export_text(const cJSON *args, const char *name, char *buffer, size_t size)
{
    char key[64];
    snprintf(key, sizeof key, "%s_hex", name);
    const cJSON *hex = cJSON_GetObjectItemCaseSensitive(args, key);
    if (cJSON_IsString(hex)) {
        size_t used = 0;
        for (const char *at = hex->valuestring; at[0] && at[1] && used + 1 < size; at += 2) {
            unsigned value;
            sscanf(at, "%2x", &value);
            buffer[used++] = (char)value;
        }
        buffer[used] = '\0';
        return buffer;
    }
    const cJSON *text = cJSON_GetObjectItemCaseSensitive(args, name);
    return cJSON_IsString(text) ? text->valuestring : "";
}

/* ---- rebuilding the expect lines from memtop's outputs ---- */

/* The contexts of allocator `index`'s snapshots, from the chrome-trace
 * export's instants (category memtop, process index + 1), in order. */
static size_t export_contexts(const cJSON *trace, int index, char ***contexts)
{
    const cJSON *events = cJSON_GetObjectItemCaseSensitive(trace, "traceEvents"), *event;
    size_t count = 0;
    *contexts = NULL;
    cJSON_ArrayForEach(event, events) {
        const cJSON *category = cJSON_GetObjectItemCaseSensitive(event, "cat");
        const cJSON *pid = cJSON_GetObjectItemCaseSensitive(event, "pid");
        if (!cJSON_IsString(category) || strcmp(category->valuestring, "memtop") != 0 ||
            !cJSON_IsNumber(pid) || pid->valueint != index + 1)
            continue;
        char buffer[4096];
        const cJSON *args = cJSON_GetObjectItemCaseSensitive(event, "args");
        *contexts = realloc(*contexts, (count + 1) * sizeof **contexts);
        (*contexts)[count++] = strdup(export_text(args, "context", buffer, sizeof buffer));
    }
    return count;
}

struct built {
    char **snapshots; /* expect lines, without their "\n" */
    size_t count;
    size_t peak_index;
    uint64_t hash;
};

static void build_snapshots(const char *dir, int index, const cJSON *trace, struct built *built)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/timeline-%d.csv", dir, index);
    char *csv = read_file(path, NULL);
    char **contexts;
    size_t context_count = export_contexts(trace, index, &contexts);
    *built = (struct built){.hash = 0xcbf29ce484222325u};
    const char *at = csv ? csv : "";
    struct csv_row row;
    long long peak = 0;
    for (bool header = true; csv_next(&at, &row); header = false) {
        if (!header && row.count >= 16) {
            char line[LINE_MAX_BYTES];
            size_t k = built->count;
            if (strcmp(row.fields[8], row.fields[9]) != 0)
                fail("requested bytes equal allocation bytes", row.fields[8], row.fields[9]);
            snprintf(line, sizeof line, "snapshot\t%d\t%zu\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s",
                     index, k, row.fields[0], row.fields[2], row.fields[4][0] ? row.fields[4] : "0",
                     row.fields[6], row.fields[7], row.fields[9], row.fields[10], row.fields[12]);
            const int texts[] = {11, 13, 14, 15};
            for (size_t t = 0; t < 4; t++)
                field_append(line, sizeof line, row.fields[texts[t]]);
            field_append(line, sizeof line, k < context_count ? contexts[k] : "");
            long long heap = strtoll(row.fields[2], NULL, 10);
            if (k == 0 || heap > peak)
                peak = heap, built->peak_index = k;
            built->hash = fnv1a(fnv1a(built->hash, line), "\n");
            built->snapshots = realloc(built->snapshots, (k + 1) * sizeof *built->snapshots);
            built->snapshots[built->count++] = strdup(line);
        }
        csv_free(&row);
    }
    if (context_count != built->count) {
        char got[32], want[32];
        snprintf(got, sizeof got, "%zu", context_count);
        snprintf(want, sizeof want, "%zu", built->count);
        fail("one export instant per snapshot", got, want);
    }
    for (size_t i = 0; i < context_count; i++)
        free(contexts[i]);
    free(contexts);
    free(csv);
}

static void check_rows(const struct expect *expect, const char *dir, int index)
{
    char path[4096], prefix[32];
    snprintf(path, sizeof path, "%s/allocations-%d.csv", dir, index);
    snprintf(prefix, sizeof prefix, "row\t%d\t", index);
    const char **want;
    size_t want_count = expect_lines(expect, prefix, &want), got_count = 0;
    char *csv = read_file(path, NULL);
    const char *at = csv ? csv : "";
    struct csv_row row;
    for (bool header = true; csv_next(&at, &row); header = false) {
        if (!header && row.count >= 7) {
            char line[LINE_MAX_BYTES];
            snprintf(line, sizeof line, "row\t%d\t%zu\t%s\t%s\t%s", index, got_count,
                     row.fields[1], row.fields[2], row.fields[3]);
            for (int t = 0; t < 4; t++)
                field_append(line, sizeof line, row.fields[t == 0 ? 0 : t + 3]);
            if (got_count >= want_count || strcmp(line, want[got_count]) != 0)
                fail("a row at the peak", line, got_count < want_count ? want[got_count] : "none");
            got_count++;
        }
        csv_free(&row);
    }
    if (got_count < want_count)
        fail("a row at the peak", "none", want[got_count]);
    free(want);
    free(csv);
}

/* A summary number, null read as 0 (what the format does not record). */
static long long summary_number(const cJSON *object, const char *name)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, name);
    return cJSON_IsNumber(item) ? (long long)item->valuedouble : 0;
}

static void check_allocator(const struct expect *expect, const char *line, const char *dir,
                            const cJSON *summary, const cJSON *trace)
{
    char field[256];
    tab_field(line, 1, field, sizeof field);
    int index = atoi(field);
    const cJSON *allocator =
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(summary, "allocators"), index);
    const cJSON *peak = cJSON_GetObjectItemCaseSensitive(allocator, "peak");
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(allocator, "id");
    struct built built;
    build_snapshots(dir, index, trace, &built);
    char got[LINE_MAX_BYTES];
    snprintf(got, sizeof got,
             "allocator\t%d\t%s\t%lld\t%lld\t%lld\t%zu\t%lld\t%lld\t%lld\t%lld\t%lld\t%lld\t"
             "%016" PRIx64,
             index, cJSON_IsString(id) ? id->valuestring : "?",
             summary_number(allocator, "snapshots"), summary_number(allocator, "allocations"),
             summary_number(allocator, "deallocations"), built.peak_index,
             summary_number(peak, "bytes"), summary_number(peak, "time_ps"),
             summary_number(peak, "free_bytes"), summary_number(allocator, "lifetime_peak_bytes"),
             summary_number(allocator, "capacity_bytes"),
             summary_number(allocator, "active_allocations"), built.hash);
    if (strcmp(got, line) != 0)
        fail("an allocator's summary and timeline hash", got, line);
    check_rows(expect, dir, index);
    char prefix[32];
    snprintf(prefix, sizeof prefix, "snapshot\t%d\t", index);
    const char **want;
    size_t want_count = expect_lines(expect, prefix, &want);
    for (size_t i = 0; i < want_count; i++) {
        tab_field(want[i], 2, field, sizeof field);
        size_t k = (size_t)strtoull(field, NULL, 10);
        const char *mine = k < built.count ? built.snapshots[k] : "none";
        if (strcmp(mine, want[i]) != 0)
            fail("a snapshot", mine, want[i]);
    }
    free(want);
    for (size_t i = 0; i < built.count; i++)
        free(built.snapshots[i]);
    free(built.snapshots);
}

/* "... out-of-memory error at 12.345 ms: 1024 bytes on cuda:0" per
 * "oom DEVICE TIME_PS BYTES" line, in order. */
static void check_out_of_memory(const struct expect *expect, const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/stderr", dir);
    char *text = read_file(path, NULL);
    const char **want;
    size_t want_count = expect_lines(expect, "oom\t", &want), found = 0;
    const char *at = text ? text : "";
    while ((at = strstr(at, "out-of-memory error at ")) != NULL) {
        char milliseconds[64], device[128], line[512], want_line[512];
        long long bytes;
        at += strlen("out-of-memory error at ");
        if (sscanf(at, "%63s ms: %lld bytes on %127s", milliseconds, &bytes, device) != 3)
            continue;
        snprintf(line, sizeof line, "oom\t%s\t%s ms\t%lld", device, milliseconds, bytes);
        if (found < want_count) {
            char time[64], want_device[128], want_bytes[64];
            tab_field(want[found], 1, want_device, sizeof want_device);
            tab_field(want[found], 2, time, sizeof time);
            tab_field(want[found], 3, want_bytes, sizeof want_bytes);
            unsigned long long ps = strtoull(time, NULL, 10), us = (ps + 500000) / 1000000;
            snprintf(want_line, sizeof want_line, "oom\t%s\t%llu.%03llu ms\t%s", want_device,
                     us / 1000, us % 1000, want_bytes);
        }
        if (found >= want_count || strcmp(line, want_line) != 0)
            fail("an out-of-memory warning", line, found < want_count ? want_line : "none");
        found++;
    }
    if (found < want_count)
        fail("an out-of-memory warning", "none", want[found]);
    free(want);
    free(text);
}

static cJSON *parse_file(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    size_t size;
    char *text = read_file(path, &size);
    cJSON *parsed = text ? cJSON_ParseWithLength(text, size) : NULL;
    if (!parsed)
        fprintf(stderr, "trace_expect: %s: missing or not JSON\n", path);
    free(text);
    return parsed;
}

static int check_all(const struct expect *expect, const char *dir)
{
    cJSON *summary = parse_file(dir, "summary.json"), *trace = parse_file(dir, "trace.json");
    if (!summary || !trace) {
        cJSON_Delete(summary);
        cJSON_Delete(trace);
        return 2;
    }
    char count[32], want[32] = "";
    snprintf(count, sizeof count, "allocators\t%d",
             cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(summary, "allocators")));
    for (size_t i = 0; i < expect->count; i++) {
        if (starts_with(expect->lines[i], "allocators\t"))
            snprintf(want, sizeof want, "%s", expect->lines[i]);
        else if (starts_with(expect->lines[i], "allocator\t"))
            check_allocator(expect, expect->lines[i], dir, summary, trace);
    }
    if (strcmp(count, want) != 0)
        fail("the number of allocators", count, want);
    check_out_of_memory(expect, dir);
    cJSON_Delete(summary);
    cJSON_Delete(trace);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: trace_expect EXPECT DIR\n");
        return 2;
    }
    struct expect expect;
    if (!expect_read(argv[1], &expect)) {
        perror(argv[1]);
        return 2;
    }
    int status = check_all(&expect, argv[2]);
    for (size_t i = 0; i < expect.count; i++)
        free(expect.lines[i]);
    free(expect.lines);
    if (status)
        return status;
    if (failures)
        fprintf(stderr, "trace_expect: %d differences\n", failures);
    return failures ? 1 : 0;
}
