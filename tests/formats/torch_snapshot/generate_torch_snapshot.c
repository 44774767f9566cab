/* generate_torch_snapshot: options, the simulated allocator, the ring
 * buffer and the expect file (see generate_torch_snapshot.h).
 *
 *   generate_torch_snapshot [--seed N] [--entries N] [--max-entries N]
 *       [--devices 1|2] [--protocol 2|4|5] [--python-only] [--oom]
 *       [--params N] [--expect] -o FILE
 *
 * --expect prints KEY=VALUE lines on standard output, per device d:
 * d<d>_entries, _initial_bytes, _initial_count (live before the first
 * kept entry), _peak_bytes, _peak_entry (the first at the maximum),
 * _peak_live, _peak_time_ps (from the earliest kept entry of any
 * device), _peak_free_bytes (reserved - allocated), _final_bytes,
 * _final_count, _segments (at the end); and devices=. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/formats/torch_snapshot/generate_torch_snapshot.h"
#include "tests/splitmix64.h"

static void *grow(void *array, size_t *capacity, size_t count, size_t size)
{
    if (count < *capacity)
        return array;
    size_t grown = *capacity ? *capacity * 2 : 1024;
    void *bigger = realloc(array, grown * size);
    if (!bigger) {
        fprintf(stderr, "generate_torch_snapshot: out of memory\n");
        exit(1);
    }
    *capacity = grown;
    return bigger;
}

static uint64_t roll(struct generator *gen, uint64_t below)
{
    return splitmix64_next(&gen->seed) % below;
}

/* ---- frames and tracebacks ---- */

static uint32_t frame_add(struct generator *gen, size_t *capacity, const char *name,
                          const char *file, int line)
{
    gen->frames = grow(gen->frames, capacity, gen->frame_count, sizeof *gen->frames);
    struct gen_frame *frame = &gen->frames[gen->frame_count];
    snprintf(frame->name, sizeof frame->name, "%s", name);
    snprintf(frame->filename, sizeof frame->filename, "%s", file);
    frame->line = line;
    return (uint32_t)gen->frame_count++;
}

/* 64 tracebacks: 48 from Python (forward, loss, optimizer), 16 from
 * autograd's thread (C++ only); each starts with the recording machinery
 * and the allocator, as stacks='all' records them. */
static void make_tracebacks(struct generator *gen)
{
    size_t capacity = 0, traceback_capacity = 0;
    uint32_t head[] = {
        frame_add(gen, &capacity, "torch::unwind::unwind()", "??", 0),
        frame_add(gen, &capacity, "torch::CapturedTraceback::gather(bool, bool, bool)", "??", 0),
        frame_add(gen, &capacity, "torch::cuda::(anonymous namespace)::gather_with_cpp()",
                  "memory_snapshot.cpp", 0),
        frame_add(gen, &capacity,
                  "c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc("
                  "unsigned long, CUstream_st*)",
                  "CUDACachingAllocator.cpp", 0),
    };
    uint32_t eval = frame_add(gen, &capacity, "_PyEval_EvalFrameDefault", "??", 0);
    uint32_t start = frame_add(gen, &capacity, "_start", "??", 0);
    uint32_t module = frame_add(gen, &capacity, "<module>", "/home/user/train.py", 60);
    uint32_t engine = frame_add(gen, &capacity,
                                "torch::autograd::Engine::thread_main(std::shared_ptr<"
                                "torch::autograd::GraphTask> const&)",
                                "", 0);
    static const char *const python_files[] = {
        "/home/user/train.py", "/home/user/model.py",
        "/usr/lib/python3/dist-packages/torch/nn/modules/linear.py",
        "/usr/lib/python3/dist-packages/torch/optim/adam.py"};
    static const char *const ops[] = {"at::native::empty_cuda", "at::native::addmm_out_cuda",
                                      "at::native::mul_out", "at::native::copy_"};
    static const char *const nodes[] = {"MmBackward0", "AddmmBackward0", "ReluBackward0",
                                        "NllLossBackward0"};
    gen->traceback_count = 64;
    gen->autograd_from = 48;
    gen->tracebacks = calloc(gen->traceback_count, sizeof *gen->tracebacks);
    (void)traceback_capacity;
    for (size_t t = 0; t < gen->traceback_count; t++) {
        struct gen_traceback *traceback = &gen->tracebacks[t];
        traceback->frames = malloc(32 * sizeof *traceback->frames);
        size_t n = 0;
        for (size_t i = 0; i < 4; i++)
            traceback->frames[n++] = head[i];
        char name[96];
        snprintf(name, sizeof name, "%s(at::Tensor const&)", ops[t % 4]);
        traceback->frames[n++] = frame_add(gen, &capacity, name, "??", 0);
        if (t >= gen->autograd_from) {
            snprintf(name, sizeof name, "torch::autograd::generated::%s::apply(std::vector<"
                                        "at::Tensor>&&)", nodes[t % 4]);
            traceback->frames[n++] = frame_add(gen, &capacity, name, "??", 0);
            traceback->frames[n++] = engine;
        } else {
            size_t depth = 1 + t % 3;
            for (size_t k = 0; k < depth; k++) {
                snprintf(name, sizeof name, "%s_%zu", k ? "forward" : "step", t);
                traceback->frames[n++] = frame_add(gen, &capacity, name,
                                                   python_files[(t + k) % 4],
                                                   (int)(10 + t * 7 + k));
                traceback->frames[n++] = eval;
            }
            traceback->frames[n++] = start;
            traceback->frames[n++] = module;
        }
        traceback->count = n;
    }
}

/* ---- the simulated allocator ---- */

static void record(struct generator *gen, int d, uint8_t action, uint64_t address, int64_t size,
                   uint32_t traceback, uint8_t stream)
{
    struct gen_device *device = &gen->device[d];
    gen->clock_us += 1 + (int64_t)roll(gen, 20);
    device->entries = grow(device->entries, &device->capacity, device->count,
                           sizeof *device->entries);
    device->entries[device->count] = (struct gen_entry){address, size, gen->clock_us, traceback,
                                                        action, stream};
    size_t capacity = device->capacity;
    device->allocated = realloc(device->allocated, capacity * sizeof *device->allocated);
    device->live = realloc(device->live, capacity * sizeof *device->live);
    device->reserved = realloc(device->reserved, capacity * sizeof *device->reserved);
    if (!device->allocated || !device->live || !device->reserved)
        exit(1);
    device->allocated[device->count] = device->allocated_now;
    device->live[device->count] = device->live_now;
    device->reserved[device->count] = device->reserved_now;
    device->count++;
}

static uint64_t address_of(int d, size_t slot)
{
    return 0x7f0000000000ull + (uint64_t)d * 0x10000000000ull +
           (uint64_t)slot * (uint64_t)GEN_SLOT_BYTES;
}

static void segment_new(struct generator *gen, int d, bool recording)
{
    struct gen_device *device = &gen->device[d];
    size_t segment = device->segment_count++;
    device->segments = realloc(device->segments, device->segment_count * sizeof *device->segments);
    size_t slots = device->segment_count * GEN_SLOTS_PER_SEGMENT;
    device->slots = realloc(device->slots, slots * sizeof *device->slots);
    device->free_slots = realloc(device->free_slots, slots * sizeof *device->free_slots);
    if (!device->segments || !device->slots || !device->free_slots)
        exit(1);
    device->segments[segment] = (struct gen_segment){0};
    for (size_t s = slots; s-- > segment * GEN_SLOTS_PER_SEGMENT;) {
        device->slots[s] = (struct gen_slot){0};
        device->free_slots[device->free_count++] = (uint32_t)s;
    }
    device->reserved_now += GEN_SEGMENT_BYTES;
    if (recording)
        record(gen, d, GEN_SEGMENT_ALLOC, address_of(d, segment * GEN_SLOTS_PER_SEGMENT),
               GEN_SEGMENT_BYTES, (uint32_t)roll(gen, gen->traceback_count), 0);
}

static uint32_t slot_take(struct generator *gen, int d, bool recording)
{
    struct gen_device *device = &gen->device[d];
    for (;;) {
        if (!device->free_count)
            segment_new(gen, d, recording);
        uint32_t slot = device->free_slots[--device->free_count];
        if (!device->segments[slot / GEN_SLOTS_PER_SEGMENT].released)
            return slot;
    }
}

static void allocate(struct generator *gen, int d, bool recording, int64_t size)
{
    struct gen_device *device = &gen->device[d];
    uint32_t slot = slot_take(gen, d, recording);
    uint32_t traceback = (uint32_t)roll(gen, gen->traceback_count);
    uint8_t stream = roll(gen, 8) == 0;
    device->slots[slot] = (struct gen_slot){size, traceback, false, recording, stream};
    device->segments[slot / GEN_SLOTS_PER_SEGMENT].live++;
    device->allocated_now += size;
    device->live_now++;
    if (recording)
        record(gen, d, GEN_ALLOC, address_of(d, slot), size, traceback, stream);
}

static void complete(struct generator *gen, int d, uint32_t slot, uint32_t traceback)
{
    struct gen_device *device = &gen->device[d];
    struct gen_slot *used = &device->slots[slot];
    int64_t size = used->requested;
    uint8_t stream = used->stream;
    device->allocated_now -= size;
    device->live_now--;
    *used = (struct gen_slot){0};
    device->segments[slot / GEN_SLOTS_PER_SEGMENT].live--;
    device->free_slots[device->free_count++] = slot;
    record(gen, d, GEN_FREE_COMPLETED, address_of(d, slot), size, traceback, stream);
}

/* free_requested, then free_completed at once or (a side stream) later. */
static void release(struct generator *gen, int d)
{
    struct gen_device *device = &gen->device[d];
    size_t slots = device->segment_count * GEN_SLOTS_PER_SEGMENT;
    for (int tries = 0; tries < 64; tries++) {
        uint32_t slot = (uint32_t)roll(gen, slots);
        struct gen_slot *used = &device->slots[slot];
        if (!used->requested || used->pending ||
            device->segments[slot / GEN_SLOTS_PER_SEGMENT].released)
            continue;
        uint32_t traceback = (uint32_t)roll(gen, gen->traceback_count);
        record(gen, d, GEN_FREE_REQUESTED, address_of(d, slot), used->requested, traceback,
               used->stream);
        if (used->stream && roll(gen, 2)) {
            used->pending = true;
            device->pending = realloc(device->pending,
                                      (device->pending_count + 1) * sizeof *device->pending);
            device->pending[device->pending_count++] = slot;
        } else {
            complete(gen, d, slot, traceback);
        }
        return;
    }
}

static void release_empty_segment(struct generator *gen, int d)
{
    struct gen_device *device = &gen->device[d];
    for (size_t s = device->segment_count; s-- > 0;) {
        if (device->segments[s].released || device->segments[s].live)
            continue;
        device->segments[s].released = true;
        device->reserved_now -= GEN_SEGMENT_BYTES;
        record(gen, d, GEN_SEGMENT_FREE, address_of(d, s * GEN_SLOTS_PER_SEGMENT),
               GEN_SEGMENT_BYTES, (uint32_t)roll(gen, gen->traceback_count), 0);
        return;
    }
}

static int64_t request_size(struct generator *gen)
{
    switch (roll(gen, 4)) {
    case 0: return 4 + (int64_t)roll(gen, 4096);
    case 1: return 512 * (1 + (int64_t)roll(gen, 256));
    default: return 1 + (int64_t)roll(gen, GEN_SLOT_BYTES);
    }
}

static void simulate(struct generator *gen, int d)
{
    struct gen_device *device = &gen->device[d];
    for (size_t i = 0; i < gen->params; i++) /* before recording: ghosts, no frames */
        allocate(gen, d, false, GEN_SLOT_BYTES / 2 + (int64_t)roll(gen, GEN_SLOT_BYTES / 2));
    unsigned step = 0;
    while (device->count < gen->entries) {
        if (d == 0 && device->count / 500 != step) {
            step = (unsigned)(device->count / 500);
            for (int k = 0; k < 2; k++) {
                gen->annotations = grow(gen->annotations, &gen->annotation_capacity,
                                        gen->annotation_count, sizeof *gen->annotations);
                gen->annotations[gen->annotation_count++] =
                    (struct gen_annotation){gen->clock_us + k, 0, k == 1, step - (k == 0)};
            }
        }
        uint64_t dice = roll(gen, 100);
        if (device->pending_count && dice < 10) {
            uint32_t slot = device->pending[--device->pending_count];
            complete(gen, d, slot, (uint32_t)roll(gen, gen->traceback_count));
        } else if (dice < 12) {
            release_empty_segment(gen, d);
        } else if (dice < 58 || device->live_now < 8) {
            allocate(gen, d, true, request_size(gen));
        } else {
            release(gen, d);
        }
    }
    if (gen->oom && d == 0)
        record(gen, d, GEN_OOM, 123456789, GEN_SEGMENT_BYTES * 1024,
               (uint32_t)roll(gen, gen->traceback_count), 0);
    device->window = gen->max_entries && device->count > gen->max_entries
                         ? device->count - gen->max_entries
                         : 0;
    /* The simulation's counts before the window's first entry. */
    if (device->window) {
        device->before_bytes = device->allocated[device->window - 1];
        device->before_count = device->live[device->window - 1];
    } else {
        device->before_bytes = device->allocated[0];
        device->before_count = device->live[0];
        const struct gen_entry *first = &device->entries[0];
        if (first->action == GEN_ALLOC) {
            device->before_bytes -= first->size;
            device->before_count--;
        } else if (first->action == GEN_FREE_COMPLETED) {
            device->before_bytes += first->size;
            device->before_count++;
        }
    }
}

/* ---- method 2: the written entries and blocks replayed (spec section 5) ---- */

/* A small open-addressing set of addresses -> size. */
struct live_map {
    uint64_t *keys;
    int64_t *sizes;
    size_t capacity, count;
};

static size_t live_slot(const struct live_map *map, uint64_t key)
{
    size_t mask = map->capacity - 1, i = (size_t)(key * 0x9e3779b97f4a7c15ull >> 20) & mask;
    while (map->keys[i] && map->keys[i] != key)
        i = (i + 1) & mask;
    return i;
}

static void live_init(struct live_map *map, size_t expected)
{
    map->capacity = 1024;
    while (map->capacity < expected * 2)
        map->capacity *= 2;
    map->keys = calloc(map->capacity, sizeof *map->keys);
    map->sizes = calloc(map->capacity, sizeof *map->sizes);
    map->count = 0;
    if (!map->keys || !map->sizes)
        exit(1);
}

/* Addresses are never 0 here, so 0 marks an empty slot; removal shifts
 * the run back (no tombstones). */
static bool live_remove(struct live_map *map, uint64_t key, int64_t *size)
{
    size_t i = live_slot(map, key), mask = map->capacity - 1;
    if (!map->keys[i])
        return false;
    if (size)
        *size = map->sizes[i];
    map->keys[i] = 0;
    map->count--;
    for (size_t j = (i + 1) & mask; map->keys[j]; j = (j + 1) & mask) {
        uint64_t k = map->keys[j];
        int64_t s = map->sizes[j];
        map->keys[j] = 0;
        size_t to = live_slot(map, k);
        map->keys[to] = k;
        map->sizes[to] = s;
    }
    return true;
}

static void live_put(struct live_map *map, uint64_t key, int64_t size)
{
    size_t i = live_slot(map, key);
    map->count += !map->keys[i];
    map->keys[i] = key;
    map->sizes[i] = size;
}

/* Checks the simulation's counts against the replay of what was written. */
static bool check_by_replay(const struct generator *gen, int d)
{
    const struct gen_device *device = &gen->device[d];
    size_t first = device->window, n = device->count - first;
    struct live_map open, live;
    live_init(&open, n + 1);
    int64_t initial = 0;
    uint32_t initial_count = 0;
    for (size_t i = first; i < device->count; i++) {
        const struct gen_entry *e = &device->entries[i];
        if (e->action == GEN_ALLOC)
            live_put(&open, e->address, e->size);
        else if (e->action == GEN_FREE_COMPLETED && !live_remove(&open, e->address, NULL)) {
            initial += e->size;
            initial_count++;
        }
    }
    live_init(&live, n + device->segment_count * GEN_SLOTS_PER_SEGMENT + 1);
    for (size_t s = 0; s < device->segment_count * GEN_SLOTS_PER_SEGMENT; s++) {
        const struct gen_slot *slot = &device->slots[s];
        if (!slot->requested || device->segments[s / GEN_SLOTS_PER_SEGMENT].released)
            continue;
        if (live_slot(&open, address_of(d, s)) < open.capacity &&
            open.keys[live_slot(&open, address_of(d, s))])
            continue;
        initial += slot->requested; /* a ghost */
        initial_count++;
    }
    bool ok = initial == device->before_bytes && initial_count == device->before_count;
    if (!ok)
        fprintf(stderr, "device %d: before the trace %lld in %u by replay, %lld in %u simulated\n",
                d, (long long)initial, initial_count, (long long)device->before_bytes,
                device->before_count);
    /* Replay: the unmatched frees' addresses first (sizes from the frees). */
    int64_t allocated = initial;
    for (size_t i = first; i < device->count; i++) {
        const struct gen_entry *e = &device->entries[i];
        int64_t size;
        if (e->action == GEN_ALLOC) {
            live_put(&live, e->address, e->size);
            allocated += e->size;
        } else if (e->action == GEN_FREE_COMPLETED) {
            allocated -= live_remove(&live, e->address, &size) ? size : e->size;
        }
        if (ok && allocated != device->allocated[i]) {
            fprintf(stderr, "device %d entry %zu: %lld by replay, %lld simulated\n", d,
                    i - first, (long long)allocated, (long long)device->allocated[i]);
            ok = false;
        }
    }
    free(open.keys);
    free(open.sizes);
    free(live.keys);
    free(live.sizes);
    return ok;
}

/* ---- the expect file ---- */

static int64_t earliest_time(const struct generator *gen)
{
    int64_t earliest = INT64_MAX;
    for (int d = 0; d < gen->devices; d++) {
        const struct gen_device *device = &gen->device[d];
        if (device->window < device->count && device->entries[device->window].time_us < earliest)
            earliest = device->entries[device->window].time_us;
    }
    return earliest;
}

static void print_expect(const struct generator *gen)
{
    int64_t earliest = earliest_time(gen);
    printf("devices=%d\n", gen->devices);
    for (int d = 0; d < gen->devices; d++) {
        const struct gen_device *device = &gen->device[d];
        size_t first = device->window, peak = first;
        for (size_t i = first; i < device->count; i++)
            if (device->allocated[i] > device->allocated[peak])
                peak = i;
        size_t last = device->count - 1;
        printf("d%d_entries=%zu\n", d, device->count - first);
        printf("d%d_initial_bytes=%lld\n", d, (long long)device->before_bytes);
        printf("d%d_initial_count=%u\n", d, device->before_count);
        printf("d%d_peak_bytes=%lld\n", d, (long long)device->allocated[peak]);
        printf("d%d_peak_entry=%zu\n", d, peak - first);
        printf("d%d_peak_live=%u\n", d, device->live[peak]);
        printf("d%d_peak_time_ps=%lld\n", d,
               (long long)(device->entries[peak].time_us - earliest) * 1000000);
        printf("d%d_peak_free_bytes=%lld\n", d,
               (long long)(device->reserved[peak] - device->allocated[peak]));
        printf("d%d_final_bytes=%lld\n", d, (long long)device->allocated[last]);
        printf("d%d_final_count=%u\n", d, device->live[last]);
        size_t segments = 0;
        for (size_t k = 0; k < device->segment_count; k++)
            segments += !device->segments[k].released;
        printf("d%d_segments=%zu\n", d, segments);
    }
}

static void usage(void)
{
    fprintf(stderr, "usage: generate_torch_snapshot [--seed N] [--entries N] "
                    "[--max-entries N] [--devices 1|2] [--protocol 2|4|5] [--python-only] "
                    "[--oom] [--params N] [--expect] -o FILE\n");
    exit(2);
}

/* Everything the generator holds, given back at exit so that the tests'
 * sanitizer builds (LeakSanitizer) run it clean. */
static void gen_free(struct generator *gen)
{
    for (size_t i = 0; i < gen->traceback_count; i++)
        free(gen->tracebacks[i].frames);
    free(gen->tracebacks);
    free(gen->frames);
    for (int d = 0; d < 2; d++) {
        struct gen_device *device = &gen->device[d];
        free(device->entries);
        free(device->slots);
        free(device->segments);
        free(device->free_slots);
        free(device->pending);
        free(device->allocated);
        free(device->live);
        free(device->reserved);
    }
    free(gen->annotations);
}

int main(int argc, char **argv)
{
    struct generator gen = {.seed = 1, .entries = 2000, .devices = 2, .protocol = 4,
                            .params = 24};
    const char *output = NULL;
    bool expect = false;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(arg, "--expect") == 0) expect = true;
        else if (strcmp(arg, "--python-only") == 0) gen.python_only = true;
        else if (strcmp(arg, "--oom") == 0) gen.oom = true;
        else if (!value) usage();
        else if (strcmp(arg, "-o") == 0) output = value, i++;
        else if (strcmp(arg, "--seed") == 0) gen.seed = strtoull(value, NULL, 10), i++;
        else if (strcmp(arg, "--entries") == 0) gen.entries = strtoull(value, NULL, 10), i++;
        else if (strcmp(arg, "--max-entries") == 0)
            gen.max_entries = strtoull(value, NULL, 10), i++;
        else if (strcmp(arg, "--devices") == 0) gen.devices = atoi(value), i++;
        else if (strcmp(arg, "--protocol") == 0) gen.protocol = atoi(value), i++;
        else if (strcmp(arg, "--params") == 0) gen.params = strtoull(value, NULL, 10), i++;
        else usage();
    }
    if (!output || gen.devices < 1 || gen.devices > 2 || gen.entries < 1 ||
        (gen.protocol != 2 && gen.protocol != 4 && gen.protocol != 5))
        usage();
    make_tracebacks(&gen);
    for (int d = 0; d < gen.devices; d++)
        simulate(&gen, d);
    for (int d = 0; d < gen.devices; d++)
        if (!check_by_replay(&gen, d)) {
            fprintf(stderr, "generate_torch_snapshot: the two counts disagree\n");
            gen_free(&gen);
            return 1;
        }
    FILE *out = strcmp(output, "-") == 0 ? stdout : fopen(output, "wb");
    if (!out || !gen_write_pickle(&gen, out) || (out != stdout && fclose(out) != 0)) {
        fprintf(stderr, "generate_torch_snapshot: cannot write %s\n", output);
        gen_free(&gen);
        return 1;
    }
    if (expect)
        print_expect(&gen);
    gen_free(&gen);
    return 0;
}
