/* xspace_walk: a minimal, independent protobuf wire walker for the XSpace
 * files tests/generate_xspace writes; the generator's own test uses it.
 *
 *     xspace_walk FILE           structure and counts, or the first error
 *     xspace_walk --dump FILE    also every memory event of the first
 *                                /host:CPU plane, in file order
 *
 * It checks what xspace.md section 2 says of the layout: fields in number
 * order (XSpace: planes, then hostnames; XPlane: id, name, lines, event
 * metadata, stat metadata, stats; XLine: id, name, timestamp_ns, events,
 * then 9-11; XEvent: metadata_id, offset_ps or num_occurrences, duration,
 * stats; XStat: metadata_id then one value), wire types, lengths, map
 * entries {key, value}, and that every ref_value names a stat-metadata
 * entry of its plane. It counts planes, lines, events and the memory
 * events of the first /host:CPU plane per memory id (allocator_name as str
 * or ref, or the decimal of an int64 index_on_host / device_ordinal; the
 * last one wins). Output, one fact a line:
 *
 *     plane NAME lines N events N
 *     hostname NAME
 *     memory_events ALLOCATIONS DEALLOCATIONS
 *     allocator ID ALLOCATIONS DEALLOCATIONS      (ID escaped as %XX)
 *     ok
 *
 * Shares no code with the generator or with memtop. Exit status 0, or 1
 * with "xspace_walk: OFFSET: WHAT" on standard error. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct span {
    const uint8_t *data;
    size_t size;
    size_t base; /* offset in the file, for messages */
};

struct field {
    uint32_t number;
    uint32_t type;
    uint64_t value;    /* varint, or fixed64 bits */
    struct span bytes; /* length-delimited */
    size_t offset;
};

static _Noreturn void fail(size_t offset, const char *what)
{
    fprintf(stderr, "xspace_walk: %zu: %s\n", offset, what);
    exit(1);
}

static uint64_t read_varint(struct span *span, size_t *at)
{
    uint64_t value = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        if (*at >= span->size)
            fail(span->base + *at, "truncated varint");
        uint8_t byte = span->data[(*at)++];
        value |= (uint64_t)(byte & 0x7f) << shift;
        if (byte < 0x80)
            return value;
    }
    fail(span->base + *at, "varint too long");
}

/* The next field of `span` from `*at`; false at the end. */
static bool next_field(struct span *span, size_t *at, struct field *field)
{
    if (*at >= span->size)
        return false;
    field->offset = span->base + *at;
    uint64_t key = read_varint(span, at);
    field->number = (uint32_t)(key >> 3);
    field->type = (uint32_t)(key & 7);
    if (field->number == 0)
        fail(field->offset, "field number 0");
    if (field->type == 0) {
        field->value = read_varint(span, at);
    } else if (field->type == 1) {
        if (span->size - *at < 8)
            fail(span->base + *at, "truncated fixed64");
        field->value = 0;
        for (int i = 0; i < 8; i++)
            field->value |= (uint64_t)span->data[*at + (size_t)i] << (8 * i);
        *at += 8;
    } else if (field->type == 2) {
        uint64_t size = read_varint(span, at);
        if (size > span->size - *at)
            fail(span->base + *at, "length past the end of its message");
        field->bytes = (struct span){span->data + *at, (size_t)size, span->base + *at};
        *at += (size_t)size;
    } else {
        fail(field->offset, "unexpected wire type");
    }
    return true;
}

static void expect_type(const struct field *field, uint32_t type)
{
    if (field->type != type)
        fail(field->offset, "wrong wire type for this field");
}

/* Fields must come in non-decreasing number order (repeated ones in a
 * run), as C++ writes them. */
static void expect_order(const struct field *field, uint32_t *last)
{
    if (field->number < *last)
        fail(field->offset, "field out of order");
    *last = field->number;
}

/* ---- per plane ---- */

struct name_entry {
    uint64_t key;
    struct span name;
};

struct names {
    struct name_entry *entries;
    size_t count, capacity;
};

static void names_add(struct names *names, uint64_t key, struct span name)
{
    if (names->count == names->capacity) {
        names->capacity = names->capacity ? names->capacity * 2 : 64;
        names->entries = realloc(names->entries, names->capacity * sizeof *names->entries);
        if (names->entries == NULL)
            fail(0, "out of memory");
    }
    names->entries[names->count++] = (struct name_entry){key, name};
}

static const struct name_entry *names_find(const struct names *names, uint64_t key)
{
    for (size_t i = names->count; i > 0; i--) /* the last entry of a key wins */
        if (names->entries[i - 1].key == key)
            return &names->entries[i - 1];
    return NULL;
}

static bool span_is(struct span span, const char *text)
{
    return span.size == strlen(text) && memcmp(span.data, text, span.size) == 0;
}

struct stat_view {
    uint64_t key;
    uint32_t kind; /* the value's field number */
    uint64_t value;
    struct span text;
};

static struct stat_view walk_stat(struct span span)
{
    struct stat_view stat = {0};
    size_t at = 0;
    uint32_t last = 0, values = 0;
    struct field field;
    while (next_field(&span, &at, &field)) {
        expect_order(&field, &last);
        if (field.number == 1) {
            expect_type(&field, 0);
            stat.key = field.value;
        } else if (field.number >= 2 && field.number <= 8) {
            values++;
            stat.kind = field.number;
            if (field.number == 2)
                expect_type(&field, 1);
            else if (field.number == 5 || field.number == 6 || field.number == 8)
                expect_type(&field, 2);
            else
                expect_type(&field, 0);
            stat.value = field.value;
            stat.text = field.bytes;
        } else {
            fail(field.offset, "unknown XStat field");
        }
    }
    if (values != 1)
        fail(span.base, "an XStat without exactly one value");
    return stat;
}

/* A map entry {key = 1, value = 2}; returns the value's span. */
static struct span walk_map_entry(struct span span, uint64_t *key)
{
    size_t at = 0;
    uint32_t last = 0;
    bool has_key = false, has_value = false;
    struct span value = {0};
    struct field field;
    while (next_field(&span, &at, &field)) {
        expect_order(&field, &last);
        if (field.number == 1) {
            expect_type(&field, 0);
            *key = field.value;
            has_key = true;
        } else if (field.number == 2) {
            expect_type(&field, 2);
            value = field.bytes;
            has_value = true;
        } else {
            fail(field.offset, "unknown map entry field");
        }
    }
    if (!has_key || !has_value)
        fail(span.base, "a map entry without key or value");
    return value;
}

static struct span metadata_name(struct span value)
{
    size_t at = 0;
    uint32_t last = 0;
    struct span name = {(const uint8_t *)"", 0, value.base};
    struct field field;
    while (next_field(&value, &at, &field)) {
        expect_order(&field, &last);
        if (field.number == 2) {
            expect_type(&field, 2);
            name = field.bytes;
        } else if (field.number == 5) {
            expect_type(&field, 2);
            walk_stat(field.bytes);
        }
    }
    return name;
}

struct allocator_count {
    char id[512];
    uint64_t allocations, deallocations;
};

struct walk {
    bool dump;
    bool host_seen;
    uint64_t allocations, deallocations;
    struct allocator_count allocators[256];
    size_t allocator_count;
};

static void print_escaped(FILE *out, struct span text)
{
    for (size_t i = 0; i < text.size; i++) {
        uint8_t byte = text.data[i];
        if (byte <= 0x20 || byte >= 0x7f || byte == '%' || byte == '"')
            fprintf(out, "%%%02X", byte);
        else
            fputc(byte, out);
    }
    if (text.size == 0)
        fputs("\"\"", out);
}

static void escape_into(char *out, size_t size, struct span text)
{
    size_t used = 0;
    for (size_t i = 0; i < text.size && used + 4 < size; i++) {
        uint8_t byte = text.data[i];
        if (byte <= 0x20 || byte >= 0x7f || byte == '%' || byte == '"')
            used += (size_t)snprintf(out + used, size - used, "%%%02X", byte);
        else
            out[used++] = (char)byte;
    }
    if (text.size == 0 && size > 2)
        used = (size_t)snprintf(out, size, "\"\"");
    out[used] = '\0';
}

/* One memory event of the host plane: its memory id as XProf takes it. */
static void count_memory_event(struct walk *walk, const struct names *stat_names,
                               const struct stat_view *stats, size_t count, bool allocation,
                               int64_t offset)
{
    char id[512] = "\"\"";
    for (size_t i = 0; i < count; i++) {
        const struct name_entry *entry = names_find(stat_names, stats[i].key);
        if (entry == NULL)
            continue;
        if (span_is(entry->name, "allocator_name")) {
            struct span text = {(const uint8_t *)"", 0, 0};
            if (stats[i].kind == 5) {
                text = stats[i].text;
            } else if (stats[i].kind == 7) {
                const struct name_entry *target = names_find(stat_names, stats[i].value);
                if (target != NULL)
                    text = target->name;
            }
            escape_into(id, sizeof id, text);
        } else if (span_is(entry->name, "index_on_host") || span_is(entry->name, "device_ordinal")) {
            snprintf(id, sizeof id, "%" PRId64, stats[i].kind == 4 ? (int64_t)stats[i].value : 0);
        }
    }
    if (allocation)
        walk->allocations++;
    else
        walk->deallocations++;
    size_t a = 0;
    while (a < walk->allocator_count && strcmp(walk->allocators[a].id, id) != 0)
        a++;
    if (a == walk->allocator_count) {
        if (a == sizeof walk->allocators / sizeof walk->allocators[0])
            fail(0, "too many allocators");
        snprintf(walk->allocators[a].id, sizeof walk->allocators[a].id, "%s", id);
        walk->allocator_count++;
    }
    if (allocation)
        walk->allocators[a].allocations++;
    else
        walk->allocators[a].deallocations++;
    if (walk->dump) {
        printf("memory %s %s offset %" PRId64, allocation ? "alloc" : "free", id, offset);
        for (size_t i = 0; i < count; i++) {
            const struct name_entry *entry = names_find(stat_names, stats[i].key);
            putchar(' ');
            if (entry != NULL)
                print_escaped(stdout, entry->name);
            else
                printf("?%" PRIu64, stats[i].key);
            if (stats[i].kind == 5) {
                putchar('=');
                print_escaped(stdout, stats[i].text);
            } else if (stats[i].kind == 7) {
                const struct name_entry *target = names_find(stat_names, stats[i].value);
                putchar('=');
                print_escaped(stdout, target != NULL ? target->name : (struct span){0});
            } else if (stats[i].kind == 2) {
                double value;
                memcpy(&value, &stats[i].value, sizeof value);
                printf("=d%.17g", value);
            } else {
                printf(stats[i].kind == 3 ? "=u%" PRIu64 : "=%" PRId64, stats[i].value);
            }
        }
        putchar('\n');
    }
}

static uint64_t walk_line(struct walk *walk, struct span line, const struct names *event_names,
                          const struct names *stat_names, bool host)
{
    size_t at = 0;
    uint32_t last = 0;
    uint64_t events = 0;
    struct field field;
    struct stat_view *stats = NULL;
    size_t stat_capacity = 0;
    while (next_field(&line, &at, &field)) {
        expect_order(&field, &last);
        if (field.number != 4) {
            if (field.number == 2 || field.number == 11)
                expect_type(&field, 2);
            else if (field.number <= 10)
                expect_type(&field, 0);
            continue;
        }
        expect_type(&field, 2);
        events++;
        size_t event_at = 0;
        uint32_t event_last = 0;
        uint64_t metadata = 0;
        int64_t offset = 0;
        bool has_offset = false, has_occurrences = false;
        size_t count = 0;
        struct field event_field;
        while (next_field(&field.bytes, &event_at, &event_field)) {
            expect_order(&event_field, &event_last);
            if (event_field.number == 4) {
                expect_type(&event_field, 2);
                if (count == stat_capacity) {
                    stat_capacity = stat_capacity ? stat_capacity * 2 : 32;
                    stats = realloc(stats, stat_capacity * sizeof *stats);
                    if (stats == NULL)
                        fail(0, "out of memory");
                }
                stats[count] = walk_stat(event_field.bytes);
                if (stats[count].kind == 7 && names_find(stat_names, stats[count].value) == NULL)
                    fail(event_field.offset, "a ref_value with no stat metadata");
                count++;
                continue;
            }
            expect_type(&event_field, 0);
            if (event_field.number == 1)
                metadata = event_field.value;
            else if (event_field.number == 2)
                has_offset = true, offset = (int64_t)event_field.value;
            else if (event_field.number == 5)
                has_occurrences = true;
            else if (event_field.number != 3)
                fail(event_field.offset, "unknown XEvent field");
        }
        if (has_offset == has_occurrences)
            fail(field.offset, "an XEvent needs exactly one of offset_ps and num_occurrences");
        const struct name_entry *name = names_find(event_names, metadata);
        if (!host || name == NULL)
            continue;
        bool allocation = span_is(name->name, "MemoryAllocation");
        if (allocation || span_is(name->name, "MemoryDeallocation"))
            count_memory_event(walk, stat_names, stats, count, allocation, offset);
    }
    free(stats);
    return events;
}

static void walk_plane(struct walk *walk, struct span plane)
{
    size_t at = 0;
    uint32_t last = 0;
    struct span name = {(const uint8_t *)"", 0, plane.base};
    struct names event_names = {0}, stat_names = {0};
    struct span *lines = NULL;
    size_t line_count = 0;
    struct field field;
    /* The maps come after the lines: collect both, then walk the lines. */
    while (next_field(&plane, &at, &field)) {
        expect_order(&field, &last);
        if (field.number == 1) {
            expect_type(&field, 0);
        } else if (field.number == 2) {
            expect_type(&field, 2);
            name = field.bytes;
        } else if (field.number == 3) {
            expect_type(&field, 2);
            lines = realloc(lines, (line_count + 1) * sizeof *lines);
            if (lines == NULL)
                fail(0, "out of memory");
            lines[line_count++] = field.bytes;
        } else if (field.number == 4 || field.number == 5) {
            expect_type(&field, 2);
            uint64_t key = 0;
            struct span value = walk_map_entry(field.bytes, &key);
            names_add(field.number == 4 ? &event_names : &stat_names, key, metadata_name(value));
        } else if (field.number == 6) {
            expect_type(&field, 2);
            walk_stat(field.bytes);
        } else {
            fail(field.offset, "unknown XPlane field");
        }
    }
    bool host = span_is(name, "/host:CPU") && !walk->host_seen;
    walk->host_seen = walk->host_seen || host;
    uint64_t events = 0;
    for (size_t i = 0; i < line_count; i++)
        events += walk_line(walk, lines[i], &event_names, &stat_names, host);
    printf("plane ");
    print_escaped(stdout, name);
    printf(" lines %zu events %" PRIu64 "\n", line_count, events);
    free(lines);
    free(event_names.entries);
    free(stat_names.entries);
}

int main(int argc, char **argv)
{
    struct walk walk = {0};
    int first = 1;
    if (argc == 3 && strcmp(argv[1], "--dump") == 0) {
        walk.dump = true;
        first = 2;
    } else if (argc != 2) {
        fprintf(stderr, "usage: xspace_walk [--dump] FILE\n");
        return 2;
    }
    FILE *file = fopen(argv[first], "rb");
    if (file == NULL)
        fail(0, "cannot open the file");
    size_t capacity = 1 << 20, size = 0;
    uint8_t *data = malloc(capacity);
    size_t got;
    while (data != NULL && (got = fread(data + size, 1, capacity - size, file)) > 0) {
        size += got;
        if (size == capacity)
            data = realloc(data, capacity *= 2);
    }
    fclose(file);
    if (data == NULL)
        fail(0, "out of memory");
    struct span space = {data, size, 0};
    size_t at = 0;
    uint32_t last = 0;
    struct field field;
    while (next_field(&space, &at, &field)) {
        expect_order(&field, &last);
        expect_type(&field, 2);
        if (field.number == 1) {
            walk_plane(&walk, field.bytes);
        } else if (field.number == 4) {
            printf("hostname ");
            print_escaped(stdout, field.bytes);
            putchar('\n');
        } else if (field.number != 2 && field.number != 3) {
            fail(field.offset, "unknown XSpace field");
        }
    }
    printf("memory_events %" PRIu64 " %" PRIu64 "\n", walk.allocations, walk.deallocations);
    for (size_t a = 0; a < walk.allocator_count; a++)
        printf("allocator %s %" PRIu64 " %" PRIu64 "\n", walk.allocators[a].id,
               walk.allocators[a].allocations, walk.allocators[a].deallocations);
    printf("ok\n");
    free(data);
    return 0;
}
