/* generate_torch_snapshot_write: the simulation as torch 2.11 lays out
 * torch.cuda.memory._snapshot() (see generate_torch_snapshot.h): keys in
 * its order, one dict per distinct frame and one list per distinct
 * traceback fetched from the memo after their first use, one empty list
 * shared by every block and segment without frames. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "tests/formats/torch_snapshot/generate_torch_snapshot.h"
#include "tests/formats/torch_snapshot/pickle_writer.h"

#define UNWRITTEN UINT32_MAX

struct layout {
    const struct generator *gen;
    struct pickle_writer *w;
    uint32_t *frame_ids;     /* memo id of each frame's dict */
    uint32_t *traceback_ids; /* of each traceback's list */
    uint32_t empty_list;
};

static uint64_t slot_address(int device, size_t slot)
{
    return 0x7f0000000000ull + (uint64_t)device * 0x10000000000ull +
           (uint64_t)slot * (uint64_t)GEN_SLOT_BYTES;
}

static void write_frame(struct layout *l, uint32_t index)
{
    if (l->frame_ids[index] != UNWRITTEN) {
        pickle_write_get(l->w, l->frame_ids[index]);
        return;
    }
    const struct gen_frame *frame = &l->gen->frames[index];
    l->frame_ids[index] = pickle_write_dict(l->w, 3);
    pickle_write_key(l->w, "name");
    pickle_write_str(l->w, frame->name);
    pickle_write_item_done(l->w);
    pickle_write_key(l->w, "filename");
    pickle_write_str(l->w, frame->filename);
    pickle_write_item_done(l->w);
    pickle_write_key(l->w, "line");
    pickle_write_int(l->w, frame->line);
    pickle_write_item_done(l->w);
}

/* A traceback's list (stacks='python' keeps its Python frames only). */
static void write_traceback(struct layout *l, uint32_t index)
{
    if (index == UINT32_MAX) {
        if (l->empty_list == UNWRITTEN)
            l->empty_list = pickle_write_list(l->w, 0);
        else
            pickle_write_get(l->w, l->empty_list);
        return;
    }
    if (l->traceback_ids[index] != UNWRITTEN) {
        pickle_write_get(l->w, l->traceback_ids[index]);
        return;
    }
    const struct gen_traceback *traceback = &l->gen->tracebacks[index];
    size_t count = 0;
    for (size_t i = 0; i < traceback->count; i++) {
        const char *file = l->gen->frames[traceback->frames[i]].filename;
        size_t length = strlen(file);
        bool python = (length > 3 && strcmp(file + length - 3, ".py") == 0) || file[0] == '<';
        count += !l->gen->python_only || python;
    }
    l->traceback_ids[index] = pickle_write_list(l->w, count);
    for (size_t i = 0; i < traceback->count; i++) {
        const char *file = l->gen->frames[traceback->frames[i]].filename;
        size_t length = strlen(file);
        bool python = (length > 3 && strcmp(file + length - 3, ".py") == 0) || file[0] == '<';
        if (l->gen->python_only && !python)
            continue;
        write_frame(l, traceback->frames[i]);
        pickle_write_item_done(l->w);
    }
}

static void member_int(struct layout *l, const char *key, int64_t value)
{
    pickle_write_key(l->w, key);
    pickle_write_int(l->w, value);
    pickle_write_item_done(l->w);
}

static void member_uint(struct layout *l, const char *key, uint64_t value)
{
    pickle_write_key(l->w, key);
    pickle_write_uint(l->w, value);
    pickle_write_item_done(l->w);
}

static void member_key(struct layout *l, const char *key, const char *value)
{
    pickle_write_key(l->w, key);
    pickle_write_key(l->w, value);
    pickle_write_item_done(l->w);
}

static uint64_t stream_value(uint8_t stream)
{
    return stream ? 0x5581a2c3d4e0ull : 0; /* a cudaStream_t is a heap pointer */
}

/* ---- segments ---- */

struct block {
    uint64_t address;
    int64_t size, requested;
    const char *state;
    uint32_t traceback;
};

/* The blocks of a segment: each used slot is an active block of its
 * rounded size and the rest of the slot free; free neighbours merge. */
static size_t segment_blocks(const struct layout *l, int device, size_t segment,
                             struct block *blocks)
{
    const struct gen_device *d = &l->gen->device[device];
    size_t count = 0;
    for (size_t s = segment * GEN_SLOTS_PER_SEGMENT; s < (segment + 1) * GEN_SLOTS_PER_SEGMENT;
         s++) {
        const struct gen_slot *slot = &d->slots[s];
        uint64_t address = slot_address(device, s);
        int64_t used = 0;
        if (slot->requested) {
            used = (slot->requested + 511) / 512 * 512;
            blocks[count++] = (struct block){
                address, used, slot->requested,
                slot->pending ? "active_pending_free" : "active_allocated",
                slot->recorded ? slot->traceback : UINT32_MAX};
        }
        if (used == GEN_SLOT_BYTES)
            continue;
        if (count && strcmp(blocks[count - 1].state, "inactive") == 0) {
            blocks[count - 1].size += GEN_SLOT_BYTES - used;
        } else {
            blocks[count++] = (struct block){address + (uint64_t)used, GEN_SLOT_BYTES - used, 0,
                                             "inactive", UINT32_MAX};
        }
    }
    return count;
}

static void write_block(struct layout *l, const struct block *block)
{
    pickle_write_dict(l->w, 5);
    member_uint(l, "address", block->address);
    member_int(l, "size", block->size);
    /* An inactive block's requested_size is stale in real files. */
    member_int(l, "requested_size", block->requested ? block->requested : 1048576);
    member_key(l, "state", block->state);
    pickle_write_key(l->w, "frames");
    write_traceback(l, block->traceback);
    pickle_write_item_done(l->w);
}

static void write_segment(struct layout *l, int device, size_t segment)
{
    struct block blocks[2 * GEN_SLOTS_PER_SEGMENT];
    size_t count = segment_blocks(l, device, segment, blocks);
    int64_t allocated = 0, active = 0, requested = 0;
    for (size_t i = 0; i < count; i++) {
        if (strcmp(blocks[i].state, "inactive") == 0)
            continue;
        active += blocks[i].size;
        requested += blocks[i].requested;
        if (strcmp(blocks[i].state, "active_allocated") == 0)
            allocated += blocks[i].size;
    }
    pickle_write_dict(l->w, 12);
    member_int(l, "device", device);
    member_uint(l, "address", slot_address(device, segment * GEN_SLOTS_PER_SEGMENT));
    member_int(l, "total_size", GEN_SEGMENT_BYTES);
    member_int(l, "allocated_size", allocated);
    member_int(l, "active_size", active);
    member_int(l, "requested_size", requested);
    member_uint(l, "stream", 0);
    member_key(l, "segment_type", "large");
    pickle_write_key(l->w, "segment_pool_id");
    pickle_write_pair(l->w, 0, 0);
    pickle_write_item_done(l->w);
    pickle_write_key(l->w, "is_expandable");
    pickle_write_bool(l->w, false);
    pickle_write_item_done(l->w);
    /* No stack: frames [] comes before blocks (torch 2.11's order). */
    pickle_write_key(l->w, "frames");
    write_traceback(l, UINT32_MAX);
    pickle_write_item_done(l->w);
    pickle_write_key(l->w, "blocks");
    pickle_write_list(l->w, count);
    for (size_t i = 0; i < count; i++) {
        write_block(l, &blocks[i]);
        pickle_write_item_done(l->w);
    }
    pickle_write_item_done(l->w);
}

static void write_segments(struct layout *l)
{
    size_t count = 0;
    for (int d = 0; d < l->gen->devices; d++)
        for (size_t s = 0; s < l->gen->device[d].segment_count; s++)
            count += !l->gen->device[d].segments[s].released;
    pickle_write_key(l->w, "segments");
    pickle_write_list(l->w, count);
    for (int d = 0; d < l->gen->devices; d++)
        for (size_t s = 0; s < l->gen->device[d].segment_count; s++)
            if (!l->gen->device[d].segments[s].released) {
                write_segment(l, d, s);
                pickle_write_item_done(l->w);
            }
    pickle_write_item_done(l->w);
}

/* ---- trace entries ---- */

static const char *const action_names[] = {
    [GEN_ALLOC] = "alloc",
    [GEN_FREE_REQUESTED] = "free_requested",
    [GEN_FREE_COMPLETED] = "free_completed",
    [GEN_SEGMENT_ALLOC] = "segment_alloc",
    [GEN_SEGMENT_FREE] = "segment_free",
    [GEN_OOM] = "oom",
};

static void write_entry(struct layout *l, const struct gen_entry *entry)
{
    bool frames = entry->traceback != UINT32_MAX;
    pickle_write_dict(l->w, frames ? 8 : 7);
    member_key(l, "action", action_names[entry->action]);
    member_uint(l, entry->action == GEN_OOM ? "device_free" : "addr", entry->address);
    member_int(l, "size", entry->size);
    member_uint(l, "stream", stream_value(entry->stream));
    member_int(l, "time_us", entry->time_us);
    member_key(l, "compile_context", "N/A");
    member_key(l, "user_metadata", "");
    if (frames) {
        pickle_write_key(l->w, "frames");
        write_traceback(l, entry->traceback);
        pickle_write_item_done(l->w);
    }
}

static void write_traces(struct layout *l)
{
    pickle_write_key(l->w, "device_traces");
    pickle_write_list(l->w, (size_t)l->gen->devices);
    for (int d = 0; d < l->gen->devices; d++) {
        const struct gen_device *device = &l->gen->device[d];
        pickle_write_list(l->w, device->count - device->window);
        for (size_t i = device->window; i < device->count; i++) {
            write_entry(l, &device->entries[i]);
            pickle_write_item_done(l->w);
        }
        pickle_write_item_done(l->w);
    }
    pickle_write_item_done(l->w);
}

static void write_settings(struct layout *l)
{
    pickle_write_key(l->w, "allocator_settings");
    pickle_write_dict(l->w, 4);
    member_key(l, "PYTORCH_CUDA_ALLOC_CONF", "");
    member_int(l, "max_split_size", -1);
    pickle_write_key(l->w, "garbage_collection_threshold");
    pickle_write_float(l->w, 0.0);
    pickle_write_item_done(l->w);
    pickle_write_key(l->w, "expandable_segments");
    pickle_write_bool(l->w, false);
    pickle_write_item_done(l->w);
    pickle_write_item_done(l->w);
}

static void write_annotations(struct layout *l)
{
    pickle_write_key(l->w, "external_annotations");
    pickle_write_list(l->w, l->gen->annotation_count);
    for (size_t i = 0; i < l->gen->annotation_count; i++) {
        const struct gen_annotation *note = &l->gen->annotations[i];
        char name[32];
        snprintf(name, sizeof name, "ProfilerStep#%u", note->step);
        pickle_write_dict(l->w, 4);
        member_key(l, "stage", note->start ? "START" : "END");
        pickle_write_key(l->w, "name");
        pickle_write_str(l->w, name);
        pickle_write_item_done(l->w);
        member_int(l, "device", note->device);
        member_int(l, "time_us", note->time_us);
        pickle_write_item_done(l->w);
    }
    pickle_write_item_done(l->w);
}

bool gen_write_pickle(const struct generator *gen, FILE *out)
{
    struct layout l = {
        .gen = gen,
        .w = pickle_writer_new(out, gen->protocol),
        .frame_ids = malloc((gen->frame_count + 1) * sizeof *l.frame_ids),
        .traceback_ids = malloc((gen->traceback_count + 1) * sizeof *l.traceback_ids),
        .empty_list = UNWRITTEN,
    };
    if (!l.w || !l.frame_ids || !l.traceback_ids)
        return false;
    memset(l.frame_ids, 0xff, (gen->frame_count + 1) * sizeof *l.frame_ids);
    memset(l.traceback_ids, 0xff, (gen->traceback_count + 1) * sizeof *l.traceback_ids);
    pickle_write_dict(l.w, 4);
    write_segments(&l);
    write_traces(&l);
    write_settings(&l);
    write_annotations(&l);
    bool ok = pickle_writer_finish(l.w);
    free(l.frame_ids);
    free(l.traceback_ids);
    return ok;
}
