/* profile_builder: how a loader makes a struct profile.
 *
 * Owns: the profile while it is being built (allocators found by memory
 * id in constant time, rows and HLO modules grown as they come, warnings)
 * and its finishing: timelines fitted and sorted by time (stably), each
 * allocator's allocations and deallocations counted, the index the chart
 * searches built. What the builder hands over is immutable.
 * Called by: the format loaders, directly or through a format's own
 * finishing (model/formats/memory_profile/xprof_draft.h for MemoryProfile files), and load.c,
 * which starts and finishes every build.
 * Must not: know any file format: what a row's indices mean, which of two
 * lists is the timeline, how a missing summary is derived all belong to
 * the format's loader. Allocator pointers into the profile move when
 * allocators are added: loaders keep indices. */
#ifndef MEMTOP_PROFILE_BUILDER_H
#define MEMTOP_PROFILE_BUILDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/profile.h"

struct live_rows;

struct profile_builder {
    /* What has been built so far: read it (loaders looking back, tests),
     * never write it but through the calls below. NULL after finish. */
    struct profile *profile;
    size_t allocator_capacity;
    size_t *row_capacity; /* per allocator */
    /* Per allocator: whether finish makes its rows the live set at its
     * peak (profile_builder_make_live_rows), and what the loader's own
     * replay found live there (profile_builder_hint_peak_live). */
    struct live_at_finish {
        bool asked;
        size_t end;
        uint32_t *live; /* NULL: no hint */
        size_t count;
    } *live_at_finish;
    /* Allocator index + 1 by memory id (open addressing), so a map of
     * many allocators loads in linear time. */
    uint32_t *allocator_slots;
    size_t allocator_slot_count;
    size_t hlo_module_capacity;
    size_t warning_capacity;
    size_t warnings_dropped; /* past PROFILE_WARNINGS_MAX */
    size_t site_capacity;
    size_t span_capacity;
    /* Stacks kept as frames (model/profile_builder_stacks.c): room, and
     * each stack's text hash with slots by hash (a stack + 1, 0 empty), so
     * that stacks of equal text get one id. */
    size_t stack_frame_capacity, stack_frame_ref_capacity, frame_stack_capacity;
    uint64_t *frame_stack_hashes;
    size_t frame_stack_hash_capacity;
    uint32_t *frame_stack_slots;
    size_t frame_stack_slot_count;
};

/* An empty profile to build; false when memory runs out. */
bool profile_builder_init(struct profile_builder *builder);
/* Frees what was built, when a load fails (harmless after finish). */
void profile_builder_discard(struct profile_builder *builder);

struct string_table *profile_builder_strings(struct profile_builder *builder);

/* Index of the allocator with memory id [id, id+length), added at the end
 * (empty, with a complete timeline) when new; *created says which. False
 * when memory runs out. */
bool profile_builder_allocator(struct profile_builder *builder, const char *id, size_t length,
                               size_t *index, bool *created);
/* The same by a string id of the builder's table; -1 when there is none
 * (it never adds). */
long profile_builder_find_allocator(const struct profile_builder *builder, uint32_t string_id);

/* Appends one snapshot to allocator `index`'s timeline (any order: finish
 * sorts). False when memory runs out. */
bool profile_builder_append_snapshot(struct profile_builder *builder, size_t index,
                                     const struct snapshot *snapshot);
/* The timeline itself, for loaders that fill it in bulk (reserve, then
 * snapshot_columns_set() and count) instead of one append at a time. */
struct snapshot_columns *profile_builder_timeline(struct profile_builder *builder, size_t index);
/* Adopts `columns` as allocator `index`'s timeline (the one it had is
 * freed) and leaves `columns` empty. */
void profile_builder_set_timeline(struct profile_builder *builder, size_t index,
                                  struct snapshot_columns *columns);
/* Complete unless said otherwise. */
void profile_builder_set_timeline_kind(struct profile_builder *builder, size_t index,
                                       enum timeline_kind kind);
/* What the format does not record for allocator `index` (enum
 * allocator_field bits); all is known unless said otherwise. */
void profile_builder_set_unknown_fields(struct profile_builder *builder, size_t index,
                                        unsigned fields);
/* Allocator `index` is PyTorch's caching allocator (allocator_word). */
void profile_builder_set_caching(struct profile_builder *builder, size_t index);
/* Sorts allocator `index`'s timeline by time now (stably), for a loader
 * that reads it sorted before finish; finish sorts what is left. */
bool profile_builder_sort_timeline(struct profile_builder *builder, size_t index);

/* Adopts `history` (model/segments.h) as allocator `index`'s segments. */
void profile_builder_set_segments(struct profile_builder *builder, size_t index,
                                  struct segment_history *history);

/* Appends a row to allocator `index`'s table (file order is kept). */
bool profile_builder_add_row(struct profile_builder *builder, size_t index,
                             const struct allocation_row *row);
/* Room for `count` more rows, when the loader knows how many come. */
bool profile_builder_reserve_rows(struct profile_builder *builder, size_t index, size_t count);

/* Appends one out-of-memory error to allocator `index` (any order:
 * finish sorts them by time, stably). False when memory runs out. */
bool profile_builder_add_oom(struct profile_builder *builder, size_t index,
                             const struct oom_event *oom);

/* Appends a line of the format's own summary to allocator `index`, and
 * a block of its memory map (address order); false when memory runs out. */
bool profile_builder_add_note(struct profile_builder *builder, size_t index,
                              const struct allocator_note *note);
bool profile_builder_add_memory_block(struct profile_builder *builder, size_t index,
                                      const struct memory_block *block);
/* Appends a site (struct frame_site) for snapshots to name; *index is
 * its number (1 and up). The loader keeps sites distinct. False when
 * memory runs out. */
bool profile_builder_add_site(struct profile_builder *builder, const struct frame_site *site,
                              uint32_t *index);

/* Appends a frame (struct stack_frame: its file and name string ids of
 * the builder's table) for stacks kept as frames; *index is its number.
 * The loader keeps frames distinct (one per distinct frame of the file).
 * False when memory runs out. */
bool profile_builder_add_stack_frame(struct profile_builder *builder,
                                     const struct stack_frame *frame, uint32_t *index);
/* Gives frame `index` its file and name (string ids), for a loader that
 * names only the frames a stack shows (stack_text_fold's lines: a frame
 * only ever folded into a count is never drawn, and its strings need not
 * be kept). False for a frame the profile does not have. */
bool profile_builder_name_stack_frame(struct profile_builder *builder, uint32_t index,
                                      uint32_t file, uint32_t name);
/* The stack id (model/stack_text.h) of the stack of `count` frames
 * (numbers the call above gave), innermost first, kept as its lines
 * (stack_text_fold: folded runs as counts): stacks whose texts read the
 * same share one id, as equal strings share one string id; no frame is
 * the empty string. Its text is made only when drawn. False when memory
 * runs out. */
bool profile_builder_add_frame_stack(struct profile_builder *builder, const uint32_t *frames,
                                     size_t count, uint32_t *stack);

/* Appends a named span of time (struct time_span: its allocator by
 * memory id, STRING_ID_NONE for every allocator); views list them by
 * start. False when memory runs out. */
bool profile_builder_add_span(struct profile_builder *builder, const struct time_span *span);

/* Which table the rows are (ALLOCATOR_ROWS_RECORDED unless said): a
 * loader that adds XProf's peak-step table says ALLOCATOR_ROWS_XPROF,
 * and where the timeline is complete finish keeps it as xprof_rows and
 * makes `rows` the live set at the peak (issue 22); a loader whose rows
 * are that live set already says ALLOCATOR_ROWS_LIVE. */
void profile_builder_set_rows_kind(struct profile_builder *builder, size_t index,
                                   enum allocator_rows kind);
/* The rows a loader added are the live set at the peak, made of
 * `live_allocations` allocations (before equal rows merge; special rows
 * not counted): rows_kind ALLOCATOR_ROWS_LIVE, for formats whose loader
 * replays the timeline itself (traces, PyTorch snapshots). */
void profile_builder_set_live_rows(struct profile_builder *builder, size_t index,
                                   size_t live_allocations);

/* The rows of allocator `index` are left to finish: the live set at
 * its peak (model/query/live_set.h at summary.peak_time_ps, the initial
 * allocations included), exactly what that query answers, for a loader
 * that adds no rows and keeps no XProf table (PyTorch memory
 * snapshots). Rows the loader added are dropped then. */
void profile_builder_make_live_rows(struct profile_builder *builder, size_t index);
/* What a loader that asked for those rows found live after the first
 * `end` snapshots of the timeline it handed over (the peak's end: every
 * snapshot at or before the peak's time), by its own replay of the
 * allocations by address (live_set.h's definition, without the initial
 * allocations): `live`, timeline indices in any order, malloc'd, is the
 * builder's now (freed on failure too). finish starts the table at the
 * peak from it when the end is the peak's and the timeline kept its
 * order, and replays the whole timeline otherwise. */
void profile_builder_hint_peak_live(struct profile_builder *builder, size_t index, size_t end,
                                    uint32_t *live, size_t count);

/* The allocations already live when allocator `index`'s timeline begins
 * (struct allocator's initial), copied, replacing any given before.
 * From each row its address, sizes (block_bytes too), op name, location
 * (and file and line), stack, module and context are kept; the builder sets the rest
 * as struct allocator says (origin, indices, no time, one occurrence,
 * an allocation). Two at one address: the later one replaces the
 * earlier from the start (as an allocation at a live address does), and
 * the heap that leaves unexplained is the live set's row "allocated
 * before the profile". False when memory runs out. */
bool profile_builder_set_initial_allocations(struct profile_builder *builder, size_t index,
                                             const struct allocation_row *rows, size_t count);

/* The blocks allocator `index` gave allocations of its timeline, where
 * the file says (struct allocator's allocation_blocks), copied (sorted by
 * snapshot index when the builder finishes), replacing any given before. The indices are the
 * timeline's as the loader made it, in time order (finish does not
 * reorder it then). False when memory runs out. */
bool profile_builder_set_allocation_blocks(struct profile_builder *builder, size_t index,
                                           const struct allocation_block *blocks, size_t count);

/* The live set at the peak, made by a loader that found it on its own
 * pass over the timeline (live_rows_of_set): XProf's table the loader
 * added (ALLOCATOR_ROWS_XPROF) moves to xprof_rows and `live`'s rows
 * become the table, as finish would have made them by a replay of its
 * own; `live` is left empty. */
void profile_builder_set_peak_live_rows(struct profile_builder *builder, size_t index,
                                        struct live_rows *live);

/* Allocator `index`'s summary: every field but the counts of allocations
 * and deallocations (finish counts them on the timeline) and peak_bytes,
 * which is computed here (stack + heap at the peak). */
void profile_builder_set_summary(struct profile_builder *builder, size_t index,
                                 const struct allocator_summary *summary);

bool profile_builder_add_hlo_module(struct profile_builder *builder,
                                    const struct hlo_module *module);
/* Starts again from an empty profile of the same source (a loader that
 * reads its file a second way after the first went wrong); false when
 * memory runs out (the builder is then to be discarded). */
bool profile_builder_restart(struct profile_builder *builder);
/* Where the profile came from, as load.c knows it; false when memory runs
 * out (the path is copied). */
bool profile_builder_set_source(struct profile_builder *builder, const char *path,
                                const struct input_format *format, bool gzipped,
                                uint64_t file_bytes);
/* The file's version (profile->version_known from then on) and hosts. */
void profile_builder_set_version(struct profile_builder *builder, int32_t version,
                                 int32_t num_hosts);

/* Records one line for the user, raw: file text it quotes is kept as
 * the file had it (NUL bytes and all) and escaped by whoever shows it.
 * A profile keeps at most PROFILE_WARNINGS_MAX; past them one last line
 * says how many more there were. False when memory runs out. */
#define PROFILE_WARNINGS_MAX 16
bool profile_builder_add_warning_bytes(struct profile_builder *builder, struct text text);
bool profile_builder_add_warning(struct profile_builder *builder, const char *text);

/* Puts the allocators named by `ids` (string ids, in that order; unknown
 * and repeated ones are ignored) first, the others after in their order. */
bool profile_builder_order_allocators(struct profile_builder *builder, const uint32_t *ids,
                                      size_t count);

/* Finishes every timeline (fit, sort, count, index), makes the live
 * rows where XProf's table was given over a complete timeline
 * (profile_builder_set_rows_kind) and the loader did not give them
 * (profile_builder_set_peak_live_rows), and hands over the profile; the
 * builder is then empty. NULL when memory runs out (the build is then
 * discarded). */
struct profile *profile_builder_finish(struct profile_builder *builder);

#endif
