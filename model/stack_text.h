/* stack_text: a row's or a site's stack (struct allocation_row's and
 * struct frame_site's `stack`) as text, whichever way the profile keeps
 * it: a stack id is either a string id (the text as the loader made it:
 * Chrome traces, Skyline, OOM logs) or, with STACK_ID_FRAMES set, a
 * stack kept as frames (struct frame_stack: a PyTorch memory snapshot's
 * tracebacks), whose text is made here, when it is drawn, exported or
 * ordered, and never stored.
 *
 * A stack of frames reads, innermost first, one line per frame shown:
 * "file:line name" for a frame shown, and "[N C++ frames]" ("frame" for
 * one) for each run of frames folded. A stack with a Python frame
 * (STACK_FRAME_PYTHON) shows its Python frames and folds the others; a
 * stack without one shows its frames but folds the machinery
 * (STACK_FRAME_MACHINERY). The builder keeps a stack as those lines
 * (stack_text_fold): a folded run is a count, not its frames, so that a
 * stack recorded with every C++ frame costs a few words, not its text.
 *
 * Called by: every consumer that shows, exports or orders a stack (the
 * allocation columns, the live rows' order, the detail view) and the
 * builder (which gives stacks of equal text one id). Must not: store a
 * stack's text in the profile, nor draw for a screen. */
#ifndef MEMTOP_STACK_TEXT_H
#define MEMTOP_STACK_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/profile.h"
#include "model/util/text.h"

/* The bit of a stack id that says "frames": string ids stay below it
 * (model/string_table.h's STRING_ID_LIMIT). */
#define STACK_ID_FRAMES 0x80000000u

static inline bool stack_id_is_frames(uint32_t stack)
{
    return (stack & STACK_ID_FRAMES) != 0 && stack != UINT32_MAX;
}

/* The stack id of profile->frame_stacks[index]. */
static inline uint32_t stack_id_of_frames(uint32_t index)
{
    return STACK_ID_FRAMES | index;
}

/* The lines of a stack of frames (struct frame_stack's refs): a frame's
 * index, or with this bit set a run of that many frames folded. */
#define STACK_REF_FOLDED 0x80000000u

/* The folding rules: the lines of `count` frames (indexes of
 * profile->stack_frames, innermost first) into `lines` (room for
 * `count`); returns how many. What the builder keeps of a stack. */
size_t stack_text_fold(const struct profile *profile, const uint32_t *frames, size_t count,
                       uint32_t *lines);

/* A caller's growing text, where stacks of frames are drawn (reused from
 * one stack to the next; zero it to start, free it at the end). */
struct stack_text {
    char *bytes;
    size_t length;
    size_t capacity;
};

/* The text of stack `stack`: a string id's bytes as the profile has them
 * (`buffer` untouched), a stack of frames drawn into `buffer` (its text
 * lives until the buffer's next use). The empty text for an id the
 * profile never gave out, for a stack of frames when `buffer` is NULL,
 * and when memory runs out. */
struct text stack_text_draw(const struct profile *profile, uint32_t stack,
                            struct stack_text *buffer);
void stack_text_free(struct stack_text *buffer);

/* Two stacks' order by their texts, bytewise as string_table_compare
 * orders strings (-1, 0, 1), without making either text: equal ids are
 * 0 at once. */
int stack_text_compare(const struct profile *profile, uint32_t a, uint32_t b);

/* A hash of the stack's text (equal texts, equal hashes), made without
 * the text: how the builder finds a stack of frames it already has. */
uint64_t stack_text_hash(const struct profile *profile, uint32_t stack);

#endif
