/* profile_builder_stacks: the builder's part for the stacks a profile
 * keeps as frames (struct stack_frame, struct frame_stack): frames
 * appended as a loader meets them, and one stack id per distinct text
 * (model/stack_text.h), as the string table gives one id per distinct
 * string, so that rows compare stacks by id.
 * Called by: loaders, through model/profile_builder.h. Must not: make a
 * stack's text to keep it (texts are hashed and compared piece by piece). */
#include "config.h"

#include "model/profile_builder.h"
#include "model/stack_text.h"

#include <stdlib.h>
#include <string.h>

#include "model/util/array_grow.h"

bool profile_builder_add_stack_frame(struct profile_builder *builder,
                                     const struct stack_frame *frame, uint32_t *index)
{
    struct profile *profile = builder->profile;
    if (profile->stack_frame_count >= STACK_REF_FOLDED ||
        !array_grow((void **)&profile->stack_frames, &builder->stack_frame_capacity,
                    profile->stack_frame_count, sizeof *profile->stack_frames, 32))
        return false;
    *index = (uint32_t)profile->stack_frame_count;
    profile->stack_frames[profile->stack_frame_count++] = *frame;
    return true;
}

bool profile_builder_name_stack_frame(struct profile_builder *builder, uint32_t index,
                                      uint32_t file, uint32_t name)
{
    struct profile *profile = builder->profile;
    if (index >= profile->stack_frame_count)
        return false;
    profile->stack_frames[index].file = file;
    profile->stack_frames[index].name = name;
    return true;
}

/* Room for `count` more frame indexes. */
static bool refs_reserve(struct profile_builder *builder, size_t count)
{
    struct profile *profile = builder->profile;
    size_t needed = profile->stack_frame_ref_count + count;
    if (needed <= builder->stack_frame_ref_capacity)
        return true;
    size_t capacity = builder->stack_frame_ref_capacity ? builder->stack_frame_ref_capacity : 256;
    while (capacity < needed)
        capacity *= 2;
    uint32_t *grown = realloc(profile->stack_frame_refs, capacity * sizeof *grown);
    if (!grown)
        return false;
    profile->stack_frame_refs = grown;
    builder->stack_frame_ref_capacity = capacity;
    return true;
}

/* Room in the slots for `needed` stacks, those there placed again (open
 * addressing by text hash, at most half full; a stack + 1, 0 empty). */
static bool slots_reserve(struct profile_builder *builder, size_t needed)
{
    if (needed <= builder->frame_stack_slot_count / 2)
        return true;
    size_t count = builder->frame_stack_slot_count ? builder->frame_stack_slot_count * 2 : 64;
    while (count / 2 < needed)
        count *= 2;
    uint32_t *slots = calloc(count, sizeof *slots);
    if (!slots)
        return false;
    for (size_t s = 0; s < builder->profile->frame_stack_count; s++) {
        size_t slot = (size_t)builder->frame_stack_hashes[s] & (count - 1);
        while (slots[slot])
            slot = (slot + 1) & (count - 1);
        slots[slot] = (uint32_t)s + 1;
    }
    free(builder->frame_stack_slots);
    builder->frame_stack_slots = slots;
    builder->frame_stack_slot_count = count;
    return true;
}

bool profile_builder_add_frame_stack(struct profile_builder *builder, const uint32_t *frames,
                                     size_t count, uint32_t *stack)
{
    struct profile *profile = builder->profile;
    if (count == 0) {
        *stack = STRING_ID_EMPTY; /* no frame: the empty text */
        return true;
    }
    size_t index = profile->frame_stack_count, first = profile->stack_frame_ref_count;
    if (index >= STACK_ID_FRAMES - 1 || count >= STACK_REF_FOLDED || count > UINT32_MAX - first ||
        !array_grow((void **)&profile->frame_stacks, &builder->frame_stack_capacity, index,
                    sizeof *profile->frame_stacks, 32) ||
        !array_grow((void **)&builder->frame_stack_hashes, &builder->frame_stack_hash_capacity,
                    index, sizeof *builder->frame_stack_hashes, 32) ||
        !refs_reserve(builder, count) || !slots_reserve(builder, index + 1))
        return false;
    /* Its lines added, then looked for among the others: taken back if
     * one reads the same. */
    size_t lines = stack_text_fold(profile, frames, count, profile->stack_frame_refs + first);
    profile->frame_stacks[index] = (struct frame_stack){(uint32_t)first, (uint32_t)lines};
    profile->frame_stack_count = index + 1;
    profile->stack_frame_ref_count = first + lines;
    uint32_t id = stack_id_of_frames((uint32_t)index);
    uint64_t hash = stack_text_hash(profile, id);
    size_t mask = builder->frame_stack_slot_count - 1, slot = (size_t)hash & mask;
    for (; builder->frame_stack_slots[slot]; slot = (slot + 1) & mask) {
        uint32_t other = builder->frame_stack_slots[slot] - 1;
        if (builder->frame_stack_hashes[other] == hash &&
            stack_text_compare(profile, stack_id_of_frames(other), id) == 0) {
            profile->frame_stack_count = index;
            profile->stack_frame_ref_count = first;
            *stack = stack_id_of_frames(other);
            return true;
        }
    }
    builder->frame_stack_slots[slot] = (uint32_t)index + 1;
    builder->frame_stack_hashes[index] = hash;
    *stack = id;
    return true;
}
