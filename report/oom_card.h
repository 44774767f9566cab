/* oom_card: the post-mortem card of one out-of-memory error, as words and
 * numbers people read: the request, what the allocator held, what was
 * free, the capacity, a verdict (larger than all free memory, or
 * fragmentation) and the top holders at the OOM by location or op.
 *
 * Owns: the card's text (escaped: safe to print or draw as it is).
 * Called by: the text summary (--summary prints it under each allocator
 * that has an OOM) and the viewer's OOM pane (ui/oom_pane.c), so both say
 * the same thing. Must not: print anything but through oom_card_print,
 * nor draw. */
#ifndef MEMTOP_OOM_CARD_H
#define MEMTOP_OOM_CARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/format.h"
#include "model/query/oom.h"
#include "model/profile.h"

#define OOM_CARD_FACTS 8
#define OOM_CARD_HOLDERS 5
#define OOM_CARD_NOTES 12
#define OOM_CARD_MAP 64

struct oom_card_fact {
    const char *label; /* "Requested", "Reserved but free", ... */
    char value[FORMAT_BYTES_SIZE];
    bool emphasis;     /* the request: drawn like the peak */
};

struct oom_card_holder {
    char bytes[FORMAT_BYTES_SIZE];
    char name[256]; /* escaped; "(no op)" for rows without one */
    uint32_t name_id; /* the same raw, for a screen that escapes as it draws */
};

struct oom_card {
    char when[48];    /* "12.031 ms"; "" without a timeline */
    size_t number;    /* this is OOM `number` (1-based) of `count` */
    size_t count;
    char op[256];     /* the op that asked, escaped; "" when unknown */
    uint32_t op_id;   /* the same raw (0: none) */
    struct oom_card_fact facts[OOM_CARD_FACTS];
    size_t fact_count;
    enum oom_verdict verdict_kind;
    char verdict[384]; /* one or two sentences */
    /* The holders are of the rows live at the OOM, or (false) of the
     * rows at the peak: a sampled timeline cannot say what was live
     * then. */
    bool holders_at_oom;
    bool holders_by_location; /* some holder is a location */
    struct oom_card_holder holders[OOM_CARD_HOLDERS];
    size_t holder_count;
    /* The format's own summary lines (escaped), as the file wrote them. */
    struct {
        char label[64];
        char value[64];
    } notes[OOM_CARD_NOTES];
    size_t note_count;
    /* The memory map, where the format walks the memory: '#' a cell in
     * use, '+' partly, '.' free; "" without one. */
    char map[OOM_CARD_MAP + 1];
};

/* The card for `oom` of `allocator`, its top holders from `rows`
 * (holders_at_oom says what they are). */
void oom_card_build(struct oom_card *card, const struct profile *profile,
                    const struct allocator *allocator, const struct oom_event *oom,
                    const struct allocation_row *rows, size_t row_count, bool holders_at_oom);
/* The same for a report: the rows live at the OOM computed here from a
 * complete timeline (interning the special rows' names, as
 * model/query/live_set.h says), else the rows at the peak. */
void oom_card_build_for_report(struct oom_card *card, const struct profile *profile,
                               size_t allocator_index, const struct oom_event *oom);
/* The card as text lines, each starting with `indent`. */
void oom_card_print(FILE *out, const struct oom_card *card, const char *indent);
/* "Top holders at the OOM, by op" (or "at the peak", "by location or
 * op"), for the printed card and the pane. */
const char *oom_card_holders_title(const struct oom_card *card);

#endif
