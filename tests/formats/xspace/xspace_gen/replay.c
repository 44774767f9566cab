/* replay: shows an existing XSpace file to the oracle as if the generator
 * had written it (generate_xspace --replay FILE --expect OUT), so the
 * oracle's reading of XProf can be checked against real captures
 * (data/real) and their numbers in FINDINGS-real-captures.md.
 *
 * A plain decoder of the wire format of xspace.md section 2: planes with
 * their lines, events, stats and metadata maps (the last entry of a key
 * wins); unknown fields skipped. Bytes values are not kept (the oracle
 * never reads them). Every plane stays alive until replay_free. */
#include "config.h"

#include "tests/formats/xspace/xspace_gen/replay.h"

#include <stdlib.h>
#include <string.h>

#include "tests/formats/xspace/xspace_gen/strings.h"
#include "tests/formats/xspace/xspace_gen/wire.h"

struct cursor {
    const uint8_t *data;
    size_t size;
    size_t at;
};

struct field {
    uint32_t number;
    uint32_t type;
    uint64_t value;
    struct cursor bytes;
};

static uint64_t read_varint(struct cursor *cursor)
{
    uint64_t value = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        if (cursor->at >= cursor->size)
            fatal("--replay: truncated varint");
        uint8_t byte = cursor->data[cursor->at++];
        value |= (uint64_t)(byte & 0x7f) << shift;
        if (byte < 0x80)
            return value;
    }
    fatal("--replay: varint too long");
}

static bool next_field(struct cursor *cursor, struct field *field)
{
    if (cursor->at >= cursor->size)
        return false;
    uint64_t key = read_varint(cursor);
    field->number = (uint32_t)(key >> 3);
    field->type = (uint32_t)(key & 7);
    field->value = 0;
    if (field->type == 0) {
        field->value = read_varint(cursor);
    } else if (field->type == 1 || field->type == 5) {
        size_t width = field->type == 1 ? 8 : 4;
        if (cursor->size - cursor->at < width)
            fatal("--replay: truncated fixed value");
        for (size_t i = 0; i < width; i++)
            field->value |= (uint64_t)cursor->data[cursor->at + i] << (8 * i);
        cursor->at += width;
    } else if (field->type == 2) {
        uint64_t size = read_varint(cursor);
        if (size > cursor->size - cursor->at)
            fatal("--replay: a length past the end");
        field->bytes = (struct cursor){cursor->data + cursor->at, (size_t)size, 0};
        cursor->at += (size_t)size;
    } else {
        fatal("--replay: unsupported wire type");
    }
    return true;
}

static uint32_t intern(const struct cursor *bytes)
{
    return string_intern(bytes->data, bytes->size);
}

static struct stat_item read_stat(struct cursor cursor)
{
    struct stat_item stat = {0};
    struct field field;
    while (next_field(&cursor, &field)) {
        if (field.number == 1) {
            stat.key = field.value;
        } else if (field.number == STAT_STR) {
            stat.kind = STAT_STR;
            stat.bits = intern(&field.bytes);
        } else if (field.number == STAT_BYTES || field.number == 8) {
            stat.kind = STAT_BYTES;
            stat.bits = 0;
        } else if (field.number >= STAT_DOUBLE && field.number <= STAT_REF) {
            stat.kind = (uint8_t)field.number;
            stat.bits = field.value;
        }
    }
    return stat;
}

static void read_metadata_entry(struct plane *plane, struct cursor entry, bool event_map)
{
    uint64_t key = 0;
    bool has_name = false;
    uint32_t name = 0;
    struct field field;
    while (next_field(&entry, &field)) {
        if (field.number == 1) {
            key = field.value;
        } else if (field.number == 2) {
            struct cursor value = field.bytes;
            struct field inner;
            has_name = false;
            while (next_field(&value, &inner))
                if (inner.number == 2 && inner.type == 2) {
                    has_name = true;
                    name = intern(&inner.bytes);
                }
        }
    }
    plane_set_metadata(plane, event_map, key, has_name, name);
}

static void read_line(struct plane *plane, struct cursor line,
                      const struct xspace_observer *observer)
{
    int64_t id = 0, timestamp_ns = 0;
    uint32_t name = 0;
    bool display_name = false;
    struct field field;
    struct cursor scan = line;
    while (next_field(&scan, &field)) {
        if (field.number == 1)
            id = (int64_t)field.value;
        else if (field.number == 2)
            name = intern(&field.bytes);
        else if (field.number == 3)
            timestamp_ns = (int64_t)field.value;
        else if (field.number == 11)
            display_name = true;
    }
    uint32_t index = plane_add_line(plane, id, name, timestamp_ns, display_name, NULL, NULL);
    struct stat_item *stats = NULL;
    size_t capacity = 0;
    while (next_field(&line, &field)) {
        if (field.number != 4)
            continue;
        struct xevent event = {0};
        size_t count = 0;
        struct cursor cursor = field.bytes;
        struct field event_field;
        while (next_field(&cursor, &event_field)) {
            if (event_field.number == 1) {
                event.metadata_key = event_field.value;
            } else if (event_field.number == 2) {
                event.offset_ps = (int64_t)event_field.value;
                event.use_num_occurrences = false;
            } else if (event_field.number == 3) {
                event.duration_ps = (int64_t)event_field.value;
            } else if (event_field.number == 5) {
                event.num_occurrences = (int64_t)event_field.value;
                event.use_num_occurrences = true;
            } else if (event_field.number == 4) {
                if (count == capacity) {
                    capacity = capacity ? capacity * 2 : 32;
                    stats = xrealloc(stats, capacity, sizeof *stats);
                }
                stats[count++] = read_stat(event_field.bytes);
            }
        }
        if (observer->event != NULL)
            observer->event(observer->context, plane, index, &event, stats, (uint32_t)count);
    }
    free(stats);
}

static struct plane *read_plane(struct cursor plane_bytes, const struct xspace_observer *observer)
{
    struct plane *plane = plane_new_named(0, 1, 0);
    struct field field;
    /* Names and maps first: events refer to them, and come before them. */
    struct cursor scan = plane_bytes;
    while (next_field(&scan, &field)) {
        if (field.number == 1)
            plane->id = (int64_t)field.value;
        else if (field.number == 2)
            plane->name = intern(&field.bytes);
        else if (field.number == 4 || field.number == 5)
            read_metadata_entry(plane, field.bytes, field.number == 4);
    }
    while (next_field(&plane_bytes, &field))
        if (field.number == 3)
            read_line(plane, field.bytes, observer);
    if (observer->plane_written != NULL)
        observer->plane_written(observer->context, plane);
    return plane;
}

void replay_file(struct replay *replay, const char *path, const struct xspace_observer *observer)
{
    FILE *file = fopen(path, "rb");
    if (file == NULL)
        fatal("--replay: cannot open the file");
    struct bytes data = {0};
    uint8_t chunk[1 << 16];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, file)) > 0)
        bytes_put(&data, chunk, got);
    fclose(file);
    struct cursor space = {data.data, data.size, 0};
    struct field field;
    while (next_field(&space, &field)) {
        if (field.number != 1)
            continue;
        replay->planes = xrealloc(replay->planes, replay->count + 1, sizeof *replay->planes);
        replay->planes[replay->count++] = read_plane(field.bytes, observer);
    }
    bytes_free(&data);
}

void replay_free(struct replay *replay)
{
    for (size_t i = 0; i < replay->count; i++)
        plane_free(replay->planes[i]);
    free(replay->planes);
    *replay = (struct replay){0};
}
