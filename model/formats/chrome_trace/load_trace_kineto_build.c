/* load_trace_kineto_build: PyTorch's attributed [memory] events become
 * allocators (see load_trace_kineto_finish.c for the decisions). */
#include "config.h"

#include "model/formats/chrome_trace/load_trace_kineto.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/format.h"
#include "model/util/index_sort.h"
#include "model/util/integer_map.h"
#include "model/util/saturating.h"

/* c10::DeviceType's names, lower case, by number. */
static const char *const device_type_names[] = {
    "cpu",  "cuda",   "mkldnn", "opengl", "opencl", "ideep", "hip",
    "fpga", "maia",   "xla",    "vulkan", "metal",  "xpu",   "mps",
    "meta", "hpu",    "ve",     "lazy",   "ipu",    "mtia",  "privateuse1",
};
#define DEVICE_TYPE_COUNT (sizeof device_type_names / sizeof *device_type_names)

/* "cpu", "cuda:0", "device42:1". */
static void device_name(int32_t type, int32_t id, char *buffer, size_t size)
{
    if (type == 0)
        snprintf(buffer, size, "cpu");
    else if (type > 0 && (size_t)type < DEVICE_TYPE_COUNT)
        snprintf(buffer, size, "%s:%d", device_type_names[type], (int)id);
    else
        snprintf(buffer, size, "device%d:%d", (int)type, (int)id);
}

static uint64_t device_key(int32_t type, int32_t id)
{
    return (uint64_t)(uint32_t)type << 32 | (uint32_t)id;
}

struct device {
    size_t allocator;
    int64_t running_max;
    bool knows_free;
    bool knows_shapes; /* a cpu_op around one of its events had Input Dims */
    /* Address -> index (in kineto->memory) of its latest allocation. */
    struct integer_map last_allocation;
};

struct devices {
    struct integer_map by_key; /* device_key -> index in list */
    struct device *list;
    size_t count;
    size_t capacity;
};

static void devices_free(struct devices *devices)
{
    for (size_t i = 0; i < devices->count; i++)
        integer_map_free(&devices->list[i].last_allocation);
    integer_map_free(&devices->by_key);
    free(devices->list);
}

/* The device (type, id), its allocator made when it is first seen. */
static struct device *device_find_or_add(struct trace_load *load, struct devices *devices,
                                         int32_t type, int32_t id)
{
    uint64_t key = device_key(type, id);
    uint32_t *found = integer_map_find(&devices->by_key, key);
    if (found)
        return &devices->list[*found];
    if (devices->count == devices->capacity) {
        size_t capacity = devices->capacity ? devices->capacity * 2 : 4;
        struct device *grown = realloc(devices->list, capacity * sizeof *grown);
        if (!grown)
            return NULL;
        devices->list = grown;
        devices->capacity = capacity;
    }
    char name[64];
    device_name(type, id, name, sizeof name);
    struct device *device = &devices->list[devices->count];
    *device = (struct device){.running_max = INT64_MIN};
    if (!trace_new_allocator(load, name, strlen(name), &device->allocator) ||
        !snapshot_columns_enable_context(profile_builder_timeline(load->builder,
                                                                  device->allocator)) ||
        (load->builder->profile->site_count > 0 && !snapshot_columns_enable_site(profile_builder_timeline(
                                 load->builder, device->allocator))) ||
        !integer_map_put(&devices->by_key, key, (uint32_t)devices->count))
        return NULL;
    /* Kineto's [memory] events come from PyTorch's allocators, whose
     * totals are Total Allocated and Total Reserved. */
    profile_builder_set_caching(load->builder, device->allocator);
    devices->count++;
    return device;
}

static struct device *device_of(struct trace_load *load, struct devices *devices,
                                const struct kineto_memory *memory)
{
    return device_find_or_add(load, devices, memory->device_type, memory->device_id);
}

/* The snapshot of one event, its op and context already final. */
static struct snapshot memory_snapshot(struct trace_load *load, struct device *device,
                                       const struct kineto_memory *memory)
{
    if (memory->total_allocated > device->running_max)
        device->running_max = memory->total_allocated;
    if (memory->shape != STRING_ID_EMPTY || memory->type != STRING_ID_EMPTY)
        device->knows_shapes = true; /* record_shapes=True */
    int activity = !memory->has_address ? MEMORY_ACTIVITY_UNKNOWN
                   : memory->bytes >= 0 ? MEMORY_ACTIVITY_ALLOCATION
                                        : MEMORY_ACTIVITY_DEALLOCATION;
    int64_t size = memory->bytes >= 0 ? memory->bytes
                   : memory->bytes == INT64_MIN ? INT64_MAX
                                                : -memory->bytes;
    int64_t free_bytes = 0;
    if (memory->has_reserved) {
        device->knows_free = true;
        int64_t room = saturating_subtract(memory->total_reserved, memory->total_allocated);
        free_bytes = room > 0 ? room : 0;
    }
    return (struct snapshot){
        .time_ps = trace_load_time_ps(load, memory->time_ns),
        .heap_bytes = memory->total_allocated,
        .free_bytes = free_bytes,
        .peak_bytes_in_use = device->running_max,
        .activity = activity,
        .requested_bytes = size,
        .allocation_bytes = size,
        .address = (uint64_t)memory->address,
        .step_id = memory->step,
        .op_name = memory->op,
        .context = memory->context,
        .site = memory->site,
        .tensor_shape = memory->shape,
        .data_type = memory->type,
    };
}

/* A free takes the op and context of its address's latest allocation. */
static bool memory_replay(struct device *device, struct kineto_memory *events, uint32_t index)
{
    struct kineto_memory *memory = &events[index];
    if (!memory->has_address)
        return true;
    uint64_t address = (uint64_t)memory->address;
    if (memory->bytes >= 0)
        return integer_map_put(&device->last_allocation, address, index);
    const uint32_t *allocation = integer_map_find(&device->last_allocation, address);
    if (allocation) {
        memory->op = events[*allocation].op;
        memory->context = events[*allocation].context;
        memory->site = events[*allocation].site;
        memory->shape = events[*allocation].shape;
        memory->type = events[*allocation].type;
    }
    return true;
}

/* The rows at the peak: the addresses live after replaying the timeline
 * up to the peak snapshot, by index, and what the heap held besides. */
static bool device_rows(struct trace_load *load, const struct device *device, size_t peak)
{
    const struct snapshot_columns *timeline =
        profile_builder_timeline(load->builder, device->allocator);
    struct integer_map live = {0};
    bool ok = true;
    for (size_t i = 0; ok && timeline->count && i <= peak; i++) {
        if (timeline->activity[i] == MEMORY_ACTIVITY_ALLOCATION)
            ok = integer_map_put(&live, timeline->address[i], (uint32_t)i);
        else if (timeline->activity[i] == MEMORY_ACTIVITY_DEALLOCATION)
            integer_map_remove(&live, timeline->address[i], NULL);
    }
    uint32_t *indices = ok ? malloc((live.count ? live.count : 1) * sizeof *indices) : NULL;
    size_t count = 0;
    for (size_t slot = 0; indices && slot < live.capacity; slot++)
        if (live.slots[slot].used)
            indices[count++] = live.slots[slot].value;
    ok = indices && trace_add_peak_rows(load, device->allocator, indices, count, peak, true);
    free(indices);
    integer_map_free(&live);
    return ok;
}

static bool device_finish(struct trace_load *load, const struct device *device)
{
    /* Kineto's memory events give an address, a size and the device's
     * totals: the op comes from the enclosing cpu_op, the rest is unknown. */
    unsigned unknown = ALLOCATOR_FIELD_STACK | ALLOCATOR_FIELD_FRAGMENTATION |
                       ALLOCATOR_FIELD_CAPACITY | ALLOCATOR_FIELD_REGION |
                       ALLOCATOR_FIELD_DATA_TYPE;
    /* With record_shapes=True the allocating op's Input Dims are the
     * shape (a column); its Input type list goes to the CSV and JSON's
     * data_type, but is no tensor's type: no type column, no breakdown
     * by it (lists of "float, Scalar" sum to nothing a user reads). */
    if (!device->knows_shapes)
        unknown |= ALLOCATOR_FIELD_TENSOR_SHAPE;
    if (!device->knows_free)
        unknown |= ALLOCATOR_FIELD_FREE;
    profile_builder_set_unknown_fields(load->builder, device->allocator, unknown);
    size_t peak = trace_set_first_peak_summary(load, device->allocator);
    return device_rows(load, device, peak);
}

static bool out_of_memory_earlier(const void *context, size_t a, size_t b)
{
    const struct kineto_out_of_memory *events = context;
    return events[a].time_ns < events[b].time_ns;
}

/* Each [OutOfMemory] as an OOM of its device's allocator. An event
 * naming no device belongs to the only device there is, if one. */
static bool add_out_of_memory(struct trace_load *load, struct devices *devices,
                              const struct trace_kineto *kineto)
{
    bool ok = true;
    for (size_t i = 0; ok && i < kineto->out_of_memory_count; i++) {
        const struct kineto_out_of_memory *oom = &kineto->out_of_memory[i];
        struct device *device =
            oom->device_type < 0 && devices->count == 1
                ? &devices->list[0]
                : device_find_or_add(load, devices, oom->device_type, oom->device_id);
        struct oom_event event = {
            .time_ps = trace_load_time_ps(load, oom->time_ns),
            .requested_bytes = oom->bytes,
            .allocated_bytes = oom->total_allocated,
            .reserved_bytes = oom->total_reserved,
            .device_free_bytes = -1,
            .largest_free_bytes = -1,
        };
        ok = device && profile_builder_add_oom(load->builder, device->allocator, &event);
    }
    return ok;
}

/* One warning per [OutOfMemory], in time order. */
static bool warn_out_of_memory(struct trace_load *load, const struct trace_kineto *kineto)
{
    size_t count = kineto->out_of_memory_count;
    size_t *order = index_sort_order(count, out_of_memory_earlier, kineto->out_of_memory);
    bool ok = order != NULL;
    for (size_t i = 0; ok && i < count; i++) {
        const struct kineto_out_of_memory *oom = &kineto->out_of_memory[order[i]];
        char device[64], time[48];
        device_name(oom->device_type, oom->device_id, device, sizeof device);
        format_milliseconds(trace_load_time_ps(load, oom->time_ns), time, sizeof time);
        ok = trace_load_warn(load, "the trace records an out-of-memory error at %s: %lld bytes on %s",
                             time, (long long)(oom->bytes < 0 ? 0 : oom->bytes), device);
    }
    free(order);
    return ok;
}

static bool warn_skipped(struct trace_load *load, const struct trace_kineto *kineto)
{
    if (kineto->malformed &&
        !trace_load_warn(load, "%zu [memory] events without Bytes, Total Allocated or a device "
                               "were left out",
                         kineto->malformed))
        return false;
    return !kineto->without_address ||
           trace_load_warn(load, "%zu [memory] events have no Addr (PyTorch before 1.10): they "
                                 "change the curve but no row",
                           kineto->without_address);
}

enum load_status trace_kineto_build(struct trace_load *load, struct trace_kineto *kineto,
                                    const size_t *order)
{
    struct devices devices = {0};
    bool ok = true;
    for (size_t i = 0; ok && i < kineto->memory_count; i++) {
        struct kineto_memory *memory = &kineto->memory[order[i]];
        struct device *device = device_of(load, &devices, memory);
        ok = device && memory_replay(device, kineto->memory, (uint32_t)order[i]);
        if (ok) {
            struct snapshot snapshot = memory_snapshot(load, device, memory);
            ok = profile_builder_append_snapshot(load->builder, device->allocator, &snapshot);
        }
    }
    ok = ok && add_out_of_memory(load, &devices, kineto);
    for (size_t i = 0; ok && i < devices.count; i++)
        ok = device_finish(load, &devices.list[i]);
    ok = ok && warn_out_of_memory(load, kineto) && warn_skipped(load, kineto);
    devices_free(&devices);
    return ok ? LOAD_OK : trace_load_no_memory(load);
}
