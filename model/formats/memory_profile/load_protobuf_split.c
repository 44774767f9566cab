/* load_protobuf_split: a long snapshot list decoded on two threads.
 *
 * A big value is shared without a pass over it first: the main thread
 * decodes it from its start, as one thread would; a worker walks the same
 * fields without decoding them up to the list's first entry past the
 * value's middle (the entries it counts on the way are the index of that
 * entry in the columns) and decodes the list from there on, straight into
 * the columns the main thread reserved from an estimate of its length,
 * with a string table of its own whose ids are translated after it is
 * joined. The columns do not move while the worker runs: when the main
 * thread would have to grow them, it stops the worker first.
 *
 * The worker never reports an error. It stops at the first entry it cannot
 * store (bad bytes, no room left, no memory) and the main thread, having
 * taken over its entries, decodes on from there: whatever went wrong is
 * found again, and reported, exactly as one thread reports it. */
#include "config.h"

#include <stdlib.h>
#include <unistd.h>

#include "model/formats/memory_profile/memory_profile_internal.h"

static size_t protobuf_parallel_threshold = LOAD_PROTOBUF_PARALLEL_THRESHOLD;

void load_protobuf_set_parallel_threshold(size_t threshold)
{
    protobuf_parallel_threshold = threshold ? threshold : LOAD_PROTOBUF_PARALLEL_THRESHOLD;
}

/* The main thread's part is a little more than half (half and a 20th):
 * the worker walks that part before it decodes its own. The estimate of
 * the list's length comes from its first entries. */
enum { SPLIT_EXTRA_SHARE = 20, SPLIT_SAMPLE_ENTRIES = 256, SPLIT_SAMPLE_FIELDS = 65536 };

/* The list most of the value's first entries belong to, and room for it in
 * its columns: the value's size over the entries' average size, plus a
 * quarter. Room not used costs address space only (its pages are never
 * touched). False when there is no list to split or no room to be had. */
static bool protobuf_reserve_split(const struct protobuf_loader *loader,
                                   struct xprof_allocator *allocator, size_t start, size_t end,
                                   struct protobuf_worker *worker)
{
    struct load_error ignored;
    const struct wire wire = { loader->wire.bytes, loader->wire.size, &ignored };
    size_t count[6] = { 0 }, bytes[6] = { 0 }, position = start;
    struct wire_field field;
    for (size_t fields = 0; fields < SPLIT_SAMPLE_FIELDS && position < end; fields++) {
        if (wire_read_field(&wire, &position, end, &field) != LOAD_OK)
            break;
        if (field.number != 1 && field.number != 5)
            continue;
        count[field.number]++;
        bytes[field.number] += position - field.offset;
        if (count[field.number] == SPLIT_SAMPLE_ENTRIES)
            break;
    }
    uint32_t number = count[5] > count[1] ? 5 : 1;
    if (count[number] == 0)
        return false;
    size_t length = (end - start) / (bytes[number] / count[number]);
    size_t most = (end - start) / 2 + 1; /* an entry takes two bytes at least */
    length = length + length / 4 + 16 < most ? length + length / 4 + 16 : most;
    struct snapshot_columns *columns =
        number == 1 ? &allocator->snapshots : &allocator->sampled;
    if (length > SIZE_MAX - columns->count ||
        !snapshot_columns_reserve(columns, columns->count + length))
        return false;
    worker->number = number;
    worker->start = start;
    worker->middle = start + (end - start) / 2 + (end - start) / SPLIT_EXTRA_SHARE;
    worker->end = end;
    worker->columns = columns;
    worker->base = columns->count;
    worker->capacity = columns->capacity;
    return true;
}

static bool protobuf_worker_cancelled(struct protobuf_worker *worker)
{
    return atomic_load_explicit(&worker->cancelled, memory_order_relaxed);
}

/* Skips the main thread's part, counting the list's entries in it. */
static bool protobuf_worker_find_split(struct protobuf_worker *worker)
{
    const struct wire *wire = &worker->loader.wire;
    size_t position = worker->start, entries = 0;
    struct wire_field field;
    for (size_t fields = 0; position < worker->end; fields++) {
        if (fields % 4096 == 0 && protobuf_worker_cancelled(worker))
            return false;
        if (wire_read_field(wire, &position, worker->end, &field) != LOAD_OK)
            return false; /* the main thread meets it first */
        if (field.number != worker->number)
            continue;
        if (field.offset >= worker->middle) {
            worker->has_split = true;
            worker->split = field.offset;
            worker->first_index = worker->base + entries;
            return true;
        }
        entries++;
    }
    return false;
}

/* Drops whole pages of the worker's own part behind it, as the tracker
 * does behind the main thread. */
static void protobuf_worker_release(struct protobuf_worker *worker, size_t *released,
                                    size_t position)
{
    if (!worker->release || position < *released ||
        position - *released < LOAD_TRACKER_STEP)
        return;
    worker->release(worker->release_context, *released, position);
    *released = position - position % worker->page_size;
}

/* The list's entries from the split on, until one cannot be stored. */
static void protobuf_worker_decode(struct protobuf_worker *worker)
{
    struct protobuf_loader *loader = &worker->loader;
    size_t position = worker->split, index = worker->first_index;
    /* Rounded up: the page holding the split is the main thread's too. */
    size_t released = position + (worker->page_size - position % worker->page_size);
    worker->stop = worker->resume = worker->end;
    while (position < worker->end && !protobuf_worker_cancelled(worker)) {
        struct wire_field field = { .offset = position };
        struct snapshot snapshot = { 0 };
        if (wire_read_field(&loader->wire, &position, worker->end, &field) != LOAD_OK) {
            worker->stop = field.offset;
            break;
        }
        if (field.number != worker->number) {
            if (worker->resume == worker->end)
                worker->resume = field.offset;
            continue;
        }
        if (index >= worker->capacity || field.type != WIRE_LENGTH ||
            protobuf_read_snapshot(loader, field.start, field.end, &snapshot) != LOAD_OK) {
            worker->stop = field.offset;
            break;
        }
        snapshot_columns_set(worker->columns, index++, &snapshot);
        protobuf_worker_release(worker, &released, position);
        if (index % 1024 == 0)
            atomic_store_explicit(&worker->reached, position, memory_order_relaxed);
    }
    worker->stored = index - worker->first_index;
}

static void *protobuf_worker_run(void *argument)
{
    struct protobuf_worker *worker = argument;
    if (protobuf_worker_find_split(worker))
        protobuf_worker_decode(worker);
    return NULL;
}

/* NULL when the value is not worth a worker or one cannot be had (no
 * estimate, out of memory, no thread): one thread decodes it all. */
struct protobuf_worker *protobuf_worker_start(const struct protobuf_loader *loader, size_t index,
                                              size_t start, size_t end)
{
    if (end - start < protobuf_parallel_threshold)
        return NULL;
    struct protobuf_worker *worker = calloc(1, sizeof *worker);
    if (!worker)
        return NULL;
    if (!protobuf_reserve_split(loader, &loader->draft->allocators[index], start, end,
                                worker)) {
        free(worker);
        return NULL;
    }
    worker->loader = (struct protobuf_loader){
        .wire = { .bytes = loader->wire.bytes, .size = loader->wire.size,
                  .error = &worker->error },
        .strings = string_table_new(),
    };
    if (loader->tracker) {
        worker->release = loader->tracker->release;
        worker->release_context = loader->tracker->release_context;
    }
    long page_size = sysconf(_SC_PAGESIZE);
    worker->page_size = page_size > 0 ? (size_t)page_size : 4096;
    atomic_init(&worker->cancelled, false);
    atomic_init(&worker->reached, 0);
    if (worker->loader.strings &&
        pthread_create(&worker->thread, NULL, protobuf_worker_run, worker) == 0)
        return worker;
    string_table_free(worker->loader.strings);
    free(worker);
    return NULL;
}

static void protobuf_worker_free(struct protobuf_worker *worker)
{
    string_table_free(worker->loader.strings);
    free(worker);
}

void protobuf_worker_cancel(struct protobuf_worker *worker)
{
    atomic_store_explicit(&worker->cancelled, true, memory_order_relaxed);
    pthread_join(worker->thread, NULL);
    protobuf_worker_free(worker);
}

/* The worker's entries become the columns' next ones, their string ids
 * the profile's. */
static bool protobuf_worker_adopt(struct protobuf_loader *loader,
                                  const struct protobuf_worker *worker)
{
    const struct string_table *strings = worker->loader.strings;
    size_t count = string_table_count(strings);
    uint32_t *ids = malloc(count * sizeof *ids);
    if (!ids || !string_table_merge(loader->strings, strings, ids)) {
        free(ids);
        return false;
    }
    struct snapshot_columns *columns = worker->columns;
    size_t end_index = worker->first_index + worker->stored;
    for (size_t i = worker->first_index; i < end_index; i++) {
        columns->op_name[i] = ids[columns->op_name[i]];
        columns->region_type[i] = ids[columns->region_type[i]];
        columns->data_type[i] = ids[columns->data_type[i]];
        columns->tensor_shape[i] = ids[columns->tensor_shape[i]];
    }
    columns->count = end_index;
    free(ids);
    return true;
}

size_t protobuf_worker_hand_over(struct protobuf_loader *loader, struct protobuf_worker *worker,
                                 size_t offset, struct protobuf_taken *taken)
{
    pthread_join(worker->thread, NULL);
    size_t next = offset;
    if (worker->has_split && worker->split == offset &&
        worker->first_index == worker->columns->count && worker->stored > 0 &&
        protobuf_worker_adopt(loader, worker)) {
        *taken = (struct protobuf_taken){ worker->number, offset, worker->stop };
        next = worker->resume < worker->stop ? worker->resume : worker->stop;
    }
    protobuf_worker_free(worker);
    return next;
}

/* Progress counts the worker's bytes too (it runs from the middle, its
 * start give or take an entry), or the bar would stop at the middle until
 * the worker is joined. Pages are released behind each thread by itself. */
void protobuf_track(struct protobuf_loader *loader, struct protobuf_worker *worker,
                    size_t position)
{
    if (!worker) {
        load_tracker_advance(loader->tracker, position);
        return;
    }
    size_t reached = atomic_load_explicit(&worker->reached, memory_order_relaxed);
    size_t done = position + (reached > worker->middle ? reached - worker->middle : 0);
    load_tracker_release(loader->tracker, position);
    load_tracker_report(loader->tracker, done < worker->end ? done : worker->end);
}

