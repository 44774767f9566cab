/* profile: what every reader of a finished profile calls: the words of
 * memory activities, an allocator's fields and words, strings by id, the
 * allocator by name, frame sites, and freeing the profile.
 * Called by: every view, report and exporter, and the builder.
 * Must not: change a profile (the builder makes it; nothing writes it
 * after). The timeline columns are model/snapshot_columns*.c's. */
#include "config.h"

#include "model/profile.h"
#include "model/segments.h"

#include "model/format.h"
#include "model/input_format.h"
#include "model/util/saturating.h"

#include <stdlib.h>
#include <string.h>

/* ---- activities ---- */

const char *memory_activity_name(int activity)
{
    switch (activity) {
    case MEMORY_ACTIVITY_ALLOCATION: return "ALLOCATION";
    case MEMORY_ACTIVITY_DEALLOCATION: return "DEALLOCATION";
    case MEMORY_ACTIVITY_RESERVATION: return "RESERVATION";
    case MEMORY_ACTIVITY_EXPANSION: return "EXPANSION";
    default: return "UNKNOWN_ACTIVITY";
    }
}

bool allocation_row_is_uncounted(const struct allocation_row *row)
{
    return row->kind != STRING_ID_EMPTY && row->allocation_bytes <= 0;
}

const char *memory_activity_label(int activity)
{
    switch (activity) {
    case MEMORY_ACTIVITY_ALLOCATION: return "allocation";
    case MEMORY_ACTIVITY_DEALLOCATION: return "deallocation";
    case MEMORY_ACTIVITY_RESERVATION: return "reservation";
    case MEMORY_ACTIVITY_EXPANSION: return "expansion";
    default: return "unknown";
    }
}

/* ---- the profile ---- */

struct text profile_string(const struct profile *profile, uint32_t string_id)
{
    return string_table_get(profile->strings, string_id);
}

bool allocator_records(const struct allocator *allocator, unsigned field)
{
    if (allocator->unknown_fields & field)
        return false;
    return allocator->timeline_kind != TIMELINE_NONE ||
           !(field & (ALLOCATOR_FIELD_FREE | ALLOCATOR_FIELD_FRAGMENTATION));
}

const char *allocator_word(const struct allocator *allocator, enum allocator_word word)
{
    /* [caching][word]: one table, so every view says the same words. */
    static const char *const words[2][ALLOCATOR_WORD_COUNT] = {
        {"heap", "free", "Peak (heap)", "Lifetime peak heap", "Heap allocation", "Free memory",
         "Lifetime peak heap usage"},
        {"allocated", "reserved but free", "Peak (allocated)", "Lifetime peak allocated",
         "Allocated", "Reserved but free", "Lifetime peak allocated"},
    };
    if ((unsigned)word >= ALLOCATOR_WORD_COUNT)
        return "";
    return words[allocator && allocator->caching ? 1 : 0][word];
}

bool allocator_records_reserved(const struct allocator *allocator)
{
    return allocator && allocator->caching && allocator->timeline.count > 0 &&
           allocator_records(allocator, ALLOCATOR_FIELD_FREE);
}

int64_t allocator_reserved_at(const struct allocator *allocator, size_t index)
{
    int64_t free_bytes = snapshot_columns_free_bytes(&allocator->timeline, index);
    return saturating_add(snapshot_columns_in_use(&allocator->timeline, index),
                          free_bytes > 0 ? free_bytes : 0);
}

bool allocator_rows_step_differs(const struct allocator *allocator, int64_t *rows_step,
                                 int64_t *peak_time_step)
{
    const struct allocator_summary *summary = &allocator->summary;
    *rows_step = summary->rows_step;
    *peak_time_step = summary->peak_time_step;
    return summary->one_step_rows && allocator->rows_kind != ALLOCATOR_ROWS_LIVE &&
           summary->rows_step != summary->peak_time_step;
}

const char *profile_text(const struct profile *profile, uint32_t string_id)
{
    return string_table_text(profile->strings, string_id);
}

const char *profile_format_name(const struct input_format *format)
{
    return format ? format->name : "";
}

long profile_find_allocator(const struct profile *profile, struct text id)
{
    for (size_t i = 0; i < profile->allocator_count; i++)
        if (text_equal(profile_string(profile, profile->allocators[i].id), id))
            return (long)i;
    return -1;
}

/* Whether `name` is the id as format_safe_bytes shows it. */
static bool shown_as(struct text id, const char *name)
{
    size_t size = 4 * id.length + 1; /* always enough (format.h) */
    char small[256];
    char *shown = size <= sizeof small ? small : malloc(size);
    if (!shown)
        return false;
    format_safe_bytes(id, 0, shown, size);
    bool same = strcmp(shown, name) == 0;
    if (shown != small)
        free(shown);
    return same;
}

long profile_find_allocator_named(const struct profile *profile, const char *name)
{
    /* The shown spelling first: it names every allocator apart (a NUL is
     * "\x00", a backslash "\\"); the bytes typed still name one whose id
     * has a backslash, as they did before escapes were understood. */
    for (size_t i = 0; i < profile->allocator_count; i++)
        if (shown_as(profile_string(profile, profile->allocators[i].id), name))
            return (long)i;
    return profile_find_allocator(profile, text_of(name));
}

void profile_free(struct profile *profile)
{
    if (!profile)
        return;
    for (size_t i = 0; i < profile->allocator_count; i++) {
        snapshot_columns_free(&profile->allocators[i].timeline);
        free(profile->allocators[i].rows);
        segment_history_free(profile->allocators[i].segments);
        free(profile->allocators[i].ooms);
        free(profile->allocators[i].notes);
        free(profile->allocators[i].memory_map);
        free(profile->allocators[i].xprof_rows);
        free(profile->allocators[i].initial);
        free(profile->allocators[i].allocation_blocks);
    }
    free(profile->warnings);
    free(profile->sites);
    free(profile->frame_stacks);
    free(profile->stack_frame_refs);
    free(profile->stack_frames);
    free(profile->spans);
    free(profile->allocators);
    free(profile->hlo_modules);
    string_table_free(profile->strings);
    free(profile->path);
    free(profile);
}

const struct allocation_row *allocator_xprof_rows(const struct allocator *allocator,
                                                  size_t *count)
{
    if (allocator->xprof_kept) {
        *count = allocator->xprof_row_count;
        return allocator->xprof_rows;
    }
    *count = allocator->row_count;
    return allocator->rows;
}

struct frame_site profile_site(const struct profile *profile, uint32_t index)
{
    if (index == 0 || index >= profile->site_count)
        return (struct frame_site){0};
    return profile->sites[index];
}
