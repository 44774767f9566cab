/* stack_text: stacks of frames made into text as they are read
 * (model/stack_text.h: the rules, the callers). Must not: keep a text. */
#include "config.h"

#include "model/stack_text.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the folding rules, once ---- */

static const struct stack_frame *frame_of(const struct profile *profile, uint32_t index)
{
    static const struct stack_frame none = {0};
    return index < profile->stack_frame_count ? &profile->stack_frames[index] : &none;
}

/* With a Python frame in the stack every other frame folds; without,
 * the machinery does. */
size_t stack_text_fold(const struct profile *profile, const uint32_t *frames, size_t count,
                       uint32_t *lines)
{
    bool has_python = false;
    for (size_t i = 0; i < count && !has_python; i++)
        has_python = (frame_of(profile, frames[i])->kind & STACK_FRAME_PYTHON) != 0;
    size_t n = 0, folded = 0;
    for (size_t i = 0; i < count; i++) {
        uint8_t kind = frame_of(profile, frames[i])->kind;
        if (has_python ? !(kind & STACK_FRAME_PYTHON) : (kind & STACK_FRAME_MACHINERY) != 0) {
            folded++;
            continue;
        }
        if (folded)
            lines[n++] = STACK_REF_FOLDED | (uint32_t)folded;
        folded = 0;
        lines[n++] = frames[i];
    }
    if (folded)
        lines[n++] = STACK_REF_FOLDED | (uint32_t)folded;
    return n;
}

/* ---- the lines of a stack of frames ---- */

struct stack_walk {
    const struct profile *profile;
    const uint32_t *lines; /* of profile->stack_frame_refs */
    size_t count, at;
};

/* A line: a run of `folded` frames, or else one frame shown. */
struct stack_line {
    size_t folded;
    const struct stack_frame *frame;
};

/* False for a stack id that is no stack of frames of the profile. */
static bool walk_start(struct stack_walk *walk, const struct profile *profile, uint32_t stack)
{
    *walk = (struct stack_walk){.profile = profile};
    uint32_t index = stack & ~STACK_ID_FRAMES;
    if (!stack_id_is_frames(stack) || index >= profile->frame_stack_count)
        return false;
    const struct frame_stack *frames = &profile->frame_stacks[index];
    if (frames->first > profile->stack_frame_ref_count ||
        frames->count > profile->stack_frame_ref_count - frames->first)
        return false;
    walk->lines = profile->stack_frame_refs + frames->first;
    walk->count = frames->count;
    return true;
}

static bool walk_next(struct stack_walk *walk, struct stack_line *line)
{
    if (walk->at >= walk->count)
        return false;
    uint32_t ref = walk->lines[walk->at++];
    if (ref & STACK_REF_FOLDED)
        *line = (struct stack_line){.folded = ref & ~STACK_REF_FOLDED};
    else
        *line = (struct stack_line){.frame = frame_of(walk->profile, ref)};
    return true;
}

/* ---- a stack's text as a run of pieces ---- */

/* A line's pieces: the newline before it (every line but the first),
 * then "file", ":line ", "name", or the fold's words. */
struct stack_pieces {
    struct text piece[4];
    size_t count;
    char number[48];
};

static void line_pieces(const struct profile *profile, const struct stack_line *line, bool first,
                        struct stack_pieces *out)
{
    out->count = 0;
    if (!first)
        out->piece[out->count++] = text_make("\n", 1);
    int length;
    if (line->folded) {
        length = snprintf(out->number, sizeof out->number, "[%zu C++ frame%s]", line->folded,
                          line->folded == 1 ? "" : "s");
        out->piece[out->count++] = text_make(out->number, length > 0 ? (size_t)length : 0);
        return;
    }
    length = snprintf(out->number, sizeof out->number, ":%lld ", (long long)line->frame->line);
    out->piece[out->count++] = profile_string(profile, line->frame->file);
    out->piece[out->count++] = text_make(out->number, length > 0 ? (size_t)length : 0);
    out->piece[out->count++] = profile_string(profile, line->frame->name);
}

/* Walks a stack's text piece by piece, whichever way it is kept. Not to
 * be copied once started (its pieces point into it). */
struct stack_cursor {
    const struct profile *profile;
    bool frames;
    struct stack_walk walk;
    struct stack_pieces pieces;
    size_t next; /* of pieces */
    size_t lines;
};

static void cursor_start(struct stack_cursor *cursor, const struct profile *profile,
                         uint32_t stack)
{
    cursor->profile = profile;
    cursor->next = 0;
    cursor->lines = 0;
    cursor->pieces.count = 0;
    cursor->frames = walk_start(&cursor->walk, profile, stack);
    if (!stack_id_is_frames(stack)) { /* a string: one piece */
        cursor->pieces.piece[0] = profile_string(profile, stack);
        cursor->pieces.count = 1;
    }
}

/* The next piece of text that is not empty; false at the end. */
static bool cursor_next(struct stack_cursor *cursor, struct text *piece)
{
    for (;;) {
        while (cursor->next < cursor->pieces.count) {
            *piece = cursor->pieces.piece[cursor->next++];
            if (piece->length > 0)
                return true;
        }
        struct stack_line line;
        if (!cursor->frames || !walk_next(&cursor->walk, &line))
            return false;
        line_pieces(cursor->profile, &line, cursor->lines++ == 0, &cursor->pieces);
        cursor->next = 0;
    }
}

/* ---- what callers ask ---- */

static bool buffer_add(struct stack_text *buffer, struct text piece)
{
    if (piece.length > SIZE_MAX / 2 - buffer->length)
        return false;
    if (buffer->length + piece.length > buffer->capacity) {
        size_t capacity = buffer->capacity ? buffer->capacity : 256;
        while (capacity < buffer->length + piece.length)
            capacity *= 2;
        char *grown = realloc(buffer->bytes, capacity);
        if (!grown)
            return false;
        buffer->bytes = grown;
        buffer->capacity = capacity;
    }
    memcpy(buffer->bytes + buffer->length, piece.bytes, piece.length);
    buffer->length += piece.length;
    return true;
}

struct text stack_text_draw(const struct profile *profile, uint32_t stack,
                            struct stack_text *buffer)
{
    if (!stack_id_is_frames(stack))
        return profile_string(profile, stack);
    if (!buffer)
        return text_make("", 0);
    buffer->length = 0;
    struct stack_cursor cursor;
    cursor_start(&cursor, profile, stack);
    struct text piece;
    while (cursor_next(&cursor, &piece)) {
        if (!buffer_add(buffer, piece)) {
            buffer->length = 0;
            return text_make("", 0);
        }
    }
    return buffer->length ? text_make(buffer->bytes, buffer->length) : text_make("", 0);
}

void stack_text_free(struct stack_text *buffer)
{
    free(buffer->bytes);
    *buffer = (struct stack_text){0};
}

int stack_text_compare(const struct profile *profile, uint32_t a, uint32_t b)
{
    if (a == b)
        return 0;
    if (!stack_id_is_frames(a) && !stack_id_is_frames(b))
        return string_table_compare(profile->strings, a, b);
    struct stack_cursor x, y;
    cursor_start(&x, profile, a);
    cursor_start(&y, profile, b);
    struct text p = text_make("", 0), q = p;
    bool more_x = true, more_y = true;
    for (;;) {
        if (p.length == 0)
            more_x = cursor_next(&x, &p);
        if (q.length == 0)
            more_y = cursor_next(&y, &q);
        if (!more_x || !more_y) /* a text that ends first is a prefix: it comes first */
            return (int)more_x - (int)more_y;
        size_t common = p.length < q.length ? p.length : q.length;
        int order = memcmp(p.bytes, q.bytes, common);
        if (order != 0)
            return order < 0 ? -1 : 1;
        p = text_make(p.bytes + common, p.length - common);
        q = text_make(q.bytes + common, q.length - common);
    }
}

/* FNV-1a over the bytes, whatever pieces they come in. */
uint64_t stack_text_hash(const struct profile *profile, uint32_t stack)
{
    struct stack_cursor cursor;
    cursor_start(&cursor, profile, stack);
    uint64_t hash = 0xcbf29ce484222325u;
    struct text piece;
    while (cursor_next(&cursor, &piece))
        for (size_t i = 0; i < piece.length; i++)
            hash = (hash ^ (unsigned char)piece.bytes[i]) * 0x100000001b3u;
    return hash;
}
