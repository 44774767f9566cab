/* load_xspace_pipeline: the host plane's walk on two threads.
 *
 * Reading an event's fields and stats is most of a big capture's work; it
 * depends on nothing but the bytes and the plane's stat-metadata map. So
 * a reader thread walks the lines and reads each event (xspace_event_read,
 * with its own copy of the map's table, whose lookup cache it writes),
 * packing what it read into batches; the loader's thread takes the batches
 * in order and applies each event (xspace_event_apply: nesting, grouping
 * forest, snapshots, interning), exactly as the one-thread walk does, line
 * by line, a line walked again included. Records in a batch:
 *   a line begins (its first timestamp_ns), an event, a line ends (its
 *   last timestamp_ns; when it differs the reader sends the line again
 *   behind it), an error (the reader stopped there), the end.
 * An error is met in the same place and reported the same way as by one
 * thread: the reader stops, and the applier reports it once it has applied
 * everything before it. The applier alone touches the loader, the tracker
 * and the file's release: the reader never calls back. */
#include "config.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/formats/xspace/xspace_internal.h"

/* Below this many bytes of lines a thread costs more than it saves. */
#define PIPELINE_THRESHOLD ((size_t)4 << 20)
#define BATCHES 4
#define BATCH_BYTES ((size_t)256 << 10)

enum record_type {
    RECORD_LINE = 1,  /* a line begins: timestamp_ns */
    RECORD_AGAIN,     /* the line again, with its last timestamp_ns */
    RECORD_LINE_END,  /* the line's last timestamp_ns */
    RECORD_EVENT,
    RECORD_ERROR,
    RECORD_END,
};

/* A record's head; an event's values follow it. */
struct record {
    uint32_t size;
    uint8_t type;
    uint8_t memory_id_kind;
    uint8_t firsts; /* 1: first_id follows, 2: first_iteration follows */
    uint8_t value_count;
    uint32_t seen;
    int64_t timestamp_ns; /* line records */
    struct xspace_event event;
};

/* A value: its kind, member and bits; a str, bytes or compressed member's
 * text follows it as a struct xspace_span. */
struct packed_value {
    uint8_t kind;
    uint8_t member;
    uint64_t bits;
};

static bool member_has_text(uint8_t member)
{
    return member == XSPACE_MEMBER_STR || member > XSPACE_MEMBER_REF || member == 6;
}

struct batch {
    uint8_t *bytes;
    size_t used;
    size_t file_end; /* the reader's place in the file when it handed the batch over */
    bool full;
};

struct pipeline {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    struct batch batches[BATCHES];
    size_t fill, take; /* batch indices, counting up */
    atomic_bool stopped; /* the applier gave up: the reader stops */
    /* the reader's own */
    struct wire wire;
    struct load_error error;
    enum load_status status;
    struct xspace_metadata_table stats; /* a copy: its cache is the reader's */
    const struct xspace_plane *plane;
    struct xspace_reading reading;
    struct batch *current;
};

static size_t pipeline_threshold = PIPELINE_THRESHOLD;

void load_xspace_set_pipeline_threshold(size_t threshold)
{
    pipeline_threshold = threshold ? threshold : PIPELINE_THRESHOLD;
}

/* Worth it with a second processor to run on; the tests force it with a
 * threshold of 1 anywhere. */
bool xspace_pipeline_wanted(size_t bytes)
{
    if (pipeline_threshold == 1)
        return true;
    return bytes >= pipeline_threshold && sysconf(_SC_NPROCESSORS_ONLN) >= 2;
}

/* ---- the reader ---- */

/* Hands the current batch (if any) over, with the lock held. */
static void reader_hand_over(struct pipeline *pipeline, size_t file_end)
{
    if (!pipeline->current)
        return;
    pipeline->current->file_end = file_end;
    pipeline->current->full = true;
    pipeline->current = NULL;
    pipeline->fill++;
    pthread_cond_broadcast(&pipeline->changed);
}

/* Hands the current batch over and waits for an empty one; false when the
 * applier stopped. */
static bool reader_next_batch(struct pipeline *pipeline, size_t file_end)
{
    pthread_mutex_lock(&pipeline->lock);
    reader_hand_over(pipeline, file_end);
    struct batch *next = &pipeline->batches[pipeline->fill % BATCHES];
    while (next->full && !atomic_load(&pipeline->stopped))
        pthread_cond_wait(&pipeline->changed, &pipeline->lock);
    pthread_mutex_unlock(&pipeline->lock);
    next->used = 0;
    pipeline->current = next;
    return !atomic_load(&pipeline->stopped);
}

/* Room for `size` bytes in the current batch. */
static void *reader_room(struct pipeline *pipeline, size_t size, size_t file_position)
{
    if (BATCH_BYTES - pipeline->current->used < size &&
        !reader_next_batch(pipeline, file_position))
        return NULL;
    void *room = pipeline->current->bytes + pipeline->current->used;
    pipeline->current->used += size;
    return room;
}

static bool reader_put_line(struct pipeline *pipeline, enum record_type type,
                            int64_t timestamp_ns, size_t file_position)
{
    struct record *record = reader_room(pipeline, sizeof *record, file_position);
    if (!record)
        return false;
    *record = (struct record){.size = sizeof *record, .type = (uint8_t)type,
                              .timestamp_ns = timestamp_ns};
    return true;
}

/* The largest record: every kind once, each with a text, both firsts. */
#define RECORD_MOST                                                                           \
    (sizeof(struct record) + 2 * sizeof(struct xspace_value) +                               \
     XSPACE_STAT_KINDS * (sizeof(struct packed_value) + sizeof(struct xspace_span)))

static bool reader_put_event(struct pipeline *pipeline, const struct xspace_event *event,
                             size_t file_position)
{
    const struct xspace_reading *reading = &pipeline->reading;
    /* Room for the largest record is taken, the rest given back after. */
    uint8_t *room = reader_room(pipeline, RECORD_MOST, file_position);
    if (!room)
        return false;
    struct record *record = (struct record *)room;
    uint8_t *at = room + sizeof *record;
    uint8_t firsts = 0, values = 0;
    if (reading->has_first_id) {
        memcpy(at, &reading->first_id, sizeof reading->first_id);
        at += sizeof reading->first_id;
        firsts |= 1;
    }
    if (reading->has_first_iteration) {
        memcpy(at, &reading->first_iteration, sizeof reading->first_iteration);
        at += sizeof reading->first_iteration;
        firsts |= 2;
    }
    for (uint32_t seen = reading->seen; seen; seen &= seen - 1, values++) {
        const struct xspace_value *value = &reading->values[__builtin_ctz(seen)];
        struct packed_value packed = {(uint8_t)__builtin_ctz(seen), value->member, value->bits};
        memcpy(at, &packed, sizeof packed);
        at += sizeof packed;
        if (member_has_text(value->member)) {
            memcpy(at, &value->text, sizeof value->text);
            at += sizeof value->text;
        }
    }
    size_t size = (size_t)(at - room);
    pipeline->current->used -= RECORD_MOST - size;
    *record = (struct record){.size = (uint32_t)size, .type = RECORD_EVENT,
                              .memory_id_kind = reading->memory_id_kind, .firsts = firsts,
                              .value_count = values, .seen = reading->seen, .event = *event};
    return true;
}

/* The events of one line into records; its last timestamp_ns in *final_ns.
 * False when the reader stops (an error, or the applier gave up). */
static bool reader_line(struct pipeline *pipeline, struct xspace_span line, int64_t *final_ns)
{
    struct wire_field field;
    *final_ns = 0;
    for (size_t position = line.start; position < line.end;) {
        enum load_status status =
            xspace_line_field(&pipeline->wire, &position, line.end, &field);
        struct xspace_event event;
        if (status == LOAD_OK && field.number == 4)
            status = xspace_event_read(&pipeline->wire, &pipeline->stats, &field, &event,
                                       &pipeline->reading);
        if (status != LOAD_OK) {
            pipeline->status = status;
            return false;
        }
        if (field.number == 3)
            *final_ns = wire_int64(field.value);
        if (field.number == 4 && !reader_put_event(pipeline, &event, field.offset))
            return false;
    }
    return true;
}

static bool reader_lines(struct pipeline *pipeline)
{
    const struct xspace_plane *plane = pipeline->plane;
    for (size_t l = 0; l < plane->line_count; l++) {
        struct xspace_line_head head;
        int64_t final_ns;
        pipeline->status = xspace_line_head(&pipeline->wire, plane->lines[l], &head);
        if (pipeline->status != LOAD_OK ||
            !reader_put_line(pipeline, RECORD_LINE, head.timestamp_ns, plane->lines[l].start) ||
            !reader_line(pipeline, plane->lines[l], &final_ns) ||
            !reader_put_line(pipeline, RECORD_LINE_END, final_ns, plane->lines[l].end))
            return false;
        if (final_ns != head.timestamp_ns &&
            (!reader_put_line(pipeline, RECORD_AGAIN, final_ns, plane->lines[l].start) ||
             !reader_line(pipeline, plane->lines[l], &final_ns) ||
             !reader_put_line(pipeline, RECORD_LINE_END, final_ns, plane->lines[l].end)))
            return false;
    }
    return true;
}

static void *reader_run(void *argument)
{
    struct pipeline *pipeline = argument;
    if (reader_next_batch(pipeline, 0)) {
        size_t end = pipeline->plane->lines[pipeline->plane->line_count - 1].end;
        bool read = reader_lines(pipeline);
        if (read || pipeline->status != LOAD_OK)
            reader_put_line(pipeline, read ? RECORD_END : RECORD_ERROR, 0, end);
        pthread_mutex_lock(&pipeline->lock);
        reader_hand_over(pipeline, end);
        pthread_mutex_unlock(&pipeline->lock);
    }
    return NULL;
}

/* ---- the applier ---- */

static const struct record *unpack(const uint8_t *at, struct xspace_reading *reading)
{
    const struct record *record = (const struct record *)at;
    at += sizeof *record;
    reading->seen = record->seen;
    reading->memory_id_kind = record->memory_id_kind;
    reading->has_first_id = record->firsts & 1;
    reading->has_first_iteration = (record->firsts & 2) != 0;
    reading->first_id.member = reading->first_iteration.member = 0;
    if (record->firsts & 1) {
        memcpy(&reading->first_id, at, sizeof reading->first_id);
        at += sizeof reading->first_id;
    }
    if (record->firsts & 2) {
        memcpy(&reading->first_iteration, at, sizeof reading->first_iteration);
        at += sizeof reading->first_iteration;
    }
    for (uint8_t v = 0; v < record->value_count; v++) {
        struct packed_value packed;
        memcpy(&packed, at, sizeof packed);
        at += sizeof packed;
        struct xspace_value *value = &reading->values[packed.kind];
        value->member = packed.member;
        value->bits = packed.bits;
        if (member_has_text(packed.member)) {
            memcpy(&value->text, at, sizeof value->text);
            at += sizeof value->text;
        }
    }
    return record;
}

/* One batch's records applied; LOAD_OK with *done at the end. */
static enum load_status apply_batch(struct xspace_loader *loader, struct xspace_walk *walk,
                                    struct pipeline *pipeline, const struct batch *batch,
                                    struct xspace_reading *reading, bool *done)
{
    enum load_status status = LOAD_OK;
    for (size_t at = 0; status == LOAD_OK && at < batch->used;) {
        const struct record *record = unpack(batch->bytes + at, reading);
        at += record->size;
        switch (record->type) {
        case RECORD_EVENT:
            status = xspace_event_apply(loader, walk, &record->event, reading);
            break;
        case RECORD_LINE:
            if (!xspace_line_start(loader, walk, record->timestamp_ns))
                status = xspace_fail_memory(loader, pipeline->plane->offset);
            break;
        case RECORD_AGAIN:
            if (!xspace_line_again(loader, walk, record->timestamp_ns))
                status = xspace_fail_memory(loader, pipeline->plane->offset);
            break;
        case RECORD_LINE_END:
            walk->redo = false;
            break;
        case RECORD_ERROR:
            if (loader->wire.error)
                *loader->wire.error = pipeline->error;
            status = pipeline->status;
            break;
        default:
            *done = true;
            return LOAD_OK;
        }
    }
    return status;
}

static enum load_status apply_all(struct xspace_loader *loader, struct xspace_walk *walk,
                                  struct pipeline *pipeline, struct xspace_reading *reading)
{
    enum load_status status = LOAD_OK;
    bool done = false;
    while (status == LOAD_OK && !done) {
        pthread_mutex_lock(&pipeline->lock);
        struct batch *batch = &pipeline->batches[pipeline->take % BATCHES];
        while (!batch->full)
            pthread_cond_wait(&pipeline->changed, &pipeline->lock);
        pthread_mutex_unlock(&pipeline->lock);
        status = apply_batch(loader, walk, pipeline, batch, reading, &done);
        load_tracker_advance(loader->tracker, batch->file_end);
        pthread_mutex_lock(&pipeline->lock);
        batch->full = false;
        pipeline->take++;
        pthread_cond_broadcast(&pipeline->changed);
        pthread_mutex_unlock(&pipeline->lock);
    }
    if (status != LOAD_OK) {
        pthread_mutex_lock(&pipeline->lock);
        atomic_store(&pipeline->stopped, true);
        pthread_cond_broadcast(&pipeline->changed);
        pthread_mutex_unlock(&pipeline->lock);
    }
    return status;
}

static void pipeline_free(struct pipeline *pipeline)
{
    for (size_t b = 0; b < BATCHES; b++)
        free(pipeline->batches[b].bytes);
    pthread_mutex_destroy(&pipeline->lock);
    pthread_cond_destroy(&pipeline->changed);
    free(pipeline);
}

enum load_status xspace_walk_pipelined(struct xspace_loader *loader, struct xspace_walk *walk,
                                       const struct xspace_plane *plane)
{
    struct pipeline *pipeline = calloc(1, sizeof *pipeline);
    struct xspace_reading *reading = malloc(sizeof *reading);
    if (!pipeline || !reading) {
        free(pipeline);
        free(reading);
        return xspace_fail_memory(loader, plane->offset);
    }
    pipeline->wire = (struct wire){loader->wire.bytes, loader->wire.size, &pipeline->error};
    pipeline->stats = plane->stats;
    memset(pipeline->stats.cache, 0, sizeof pipeline->stats.cache);
    pipeline->plane = plane;
    atomic_init(&pipeline->stopped, false);
    bool ok = pthread_mutex_init(&pipeline->lock, NULL) == 0 &&
              pthread_cond_init(&pipeline->changed, NULL) == 0;
    for (size_t b = 0; ok && b < BATCHES; b++)
        ok = (pipeline->batches[b].bytes = malloc(BATCH_BYTES)) != NULL;
    enum load_status status;
    if (ok && pthread_create(&pipeline->thread, NULL, reader_run, pipeline) == 0) {
        status = apply_all(loader, walk, pipeline, reading);
        pthread_join(pipeline->thread, NULL);
    } else {
        status = xspace_fail_memory(loader, plane->offset);
    }
    pipeline_free(pipeline);
    free(reading);
    return status;
}
