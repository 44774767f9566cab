/* pickle_writer: CPython's pickler, restated for plain data (see
 * pickle_writer.h). */
#include "config.h"

#include "tests/formats/torch_snapshot/pickle_writer.h"

#include <stdlib.h>
#include <string.h>

#define FRAME_TARGET (64 * 1024)
#define BATCH 1000
#define DEPTH_MAX 64
#define KEYS_MAX 256

struct open_container {
    bool dict;
    size_t remaining; /* items not yet in a finished batch */
    size_t batch, done;
};

struct pickle_writer {
    FILE *out;
    int protocol;
    bool failed;
    unsigned char *frame;
    size_t frame_length, frame_capacity;
    uint64_t bytes;
    uint32_t memo_count;
    struct open_container open[DEPTH_MAX];
    size_t depth;
    char *keys[KEYS_MAX];
    uint32_t key_ids[KEYS_MAX];
    size_t key_count;
};

static void emit(struct pickle_writer *w, const void *bytes, size_t length)
{
    if (w->protocol < 4) {
        w->failed |= fwrite(bytes, 1, length, w->out) != length;
        w->bytes += length;
        return;
    }
    if (w->frame_length + length > w->frame_capacity) {
        size_t capacity = w->frame_capacity ? w->frame_capacity : FRAME_TARGET * 2;
        while (capacity < w->frame_length + length)
            capacity *= 2;
        unsigned char *grown = realloc(w->frame, capacity);
        if (!grown) {
            w->failed = true;
            return;
        }
        w->frame = grown;
        w->frame_capacity = capacity;
    }
    memcpy(w->frame + w->frame_length, bytes, length);
    w->frame_length += length;
}

static void byte(struct pickle_writer *w, uint8_t value)
{
    emit(w, &value, 1);
}

static void little(struct pickle_writer *w, uint64_t value, size_t n)
{
    unsigned char bytes[8];
    for (size_t i = 0; i < n; i++)
        bytes[i] = (unsigned char)(value >> (8 * i));
    emit(w, bytes, n);
}

/* _Framer.commit_frame: a frame past the target is written out before
 * the next object. */
static void commit_frame(struct pickle_writer *w, bool force)
{
    if (w->protocol < 4 || !w->frame_length || (!force && w->frame_length < FRAME_TARGET))
        return;
    unsigned char header[9] = {0x95};
    for (int i = 0; i < 8; i++)
        header[1 + i] = (unsigned char)((uint64_t)w->frame_length >> (8 * i));
    w->failed |= fwrite(header, 1, 9, w->out) != 9;
    w->failed |= fwrite(w->frame, 1, w->frame_length, w->out) != w->frame_length;
    w->bytes += 9 + w->frame_length;
    w->frame_length = 0;
}

struct pickle_writer *pickle_writer_new(FILE *out, int protocol)
{
    struct pickle_writer *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->out = out;
    w->protocol = protocol;
    unsigned char proto[2] = {0x80, (unsigned char)protocol};
    w->failed |= fwrite(proto, 1, 2, out) != 2;
    w->bytes = 2;
    return w;
}

bool pickle_writer_finish(struct pickle_writer *w)
{
    byte(w, '.');
    commit_frame(w, true);
    bool ok = !w->failed && w->depth == 0;
    for (size_t i = 0; i < w->key_count; i++)
        free(w->keys[i]);
    free(w->frame);
    free(w);
    return ok;
}

uint64_t pickle_writer_bytes(const struct pickle_writer *w)
{
    return w->bytes + w->frame_length;
}

static uint32_t memoize(struct pickle_writer *w)
{
    uint32_t id = w->memo_count++;
    if (w->protocol >= 4) {
        byte(w, 0x94);
    } else if (id < 256) {
        byte(w, 'q');
        byte(w, (uint8_t)id);
    } else {
        byte(w, 'r');
        little(w, id, 4);
    }
    return id;
}

static void batch_start(struct pickle_writer *w, struct open_container *c)
{
    c->batch = c->remaining < BATCH ? c->remaining : BATCH;
    c->done = 0;
    if (c->batch > 1)
        byte(w, '(');
}

static uint32_t container(struct pickle_writer *w, uint8_t empty, bool dict, size_t count)
{
    commit_frame(w, false);
    byte(w, empty);
    uint32_t id = memoize(w);
    if (count && w->depth < DEPTH_MAX) {
        struct open_container *c = &w->open[w->depth++];
        *c = (struct open_container){.dict = dict, .remaining = count};
        batch_start(w, c);
    }
    return id;
}

uint32_t pickle_write_dict(struct pickle_writer *w, size_t count)
{
    return container(w, '}', true, count);
}

uint32_t pickle_write_list(struct pickle_writer *w, size_t count)
{
    return container(w, ']', false, count);
}

void pickle_write_item_done(struct pickle_writer *w)
{
    if (!w->depth)
        return;
    struct open_container *c = &w->open[w->depth - 1];
    if (++c->done < c->batch)
        return;
    if (c->batch > 1)
        byte(w, c->dict ? 'u' : 'e');
    else
        byte(w, c->dict ? 's' : 'a');
    c->remaining -= c->batch;
    if (c->remaining)
        batch_start(w, c);
    else
        w->depth--;
}

uint32_t pickle_write_str(struct pickle_writer *w, const char *text)
{
    commit_frame(w, false);
    size_t length = strlen(text);
    if (w->protocol >= 4 && length < 256) {
        byte(w, 0x8c);
        byte(w, (uint8_t)length);
    } else {
        byte(w, 'X');
        little(w, length, 4);
    }
    emit(w, text, length);
    return memoize(w);
}

void pickle_write_get(struct pickle_writer *w, uint32_t id)
{
    commit_frame(w, false);
    if (id < 256) {
        byte(w, 'h');
        byte(w, (uint8_t)id);
    } else {
        byte(w, 'j');
        little(w, id, 4);
    }
}

void pickle_write_key(struct pickle_writer *w, const char *text)
{
    for (size_t i = 0; i < w->key_count; i++)
        if (strcmp(w->keys[i], text) == 0) {
            pickle_write_get(w, w->key_ids[i]);
            return;
        }
    uint32_t id = pickle_write_str(w, text);
    if (w->key_count < KEYS_MAX && (w->keys[w->key_count] = strdup(text))) {
        w->key_ids[w->key_count++] = id;
    }
}

/* encode_long: the fewest two's-complement bytes, little-endian. */
static void write_long(struct pickle_writer *w, uint64_t raw, bool negative, bool wide)
{
    unsigned char bytes[9];
    for (int i = 0; i < 8; i++)
        bytes[i] = (unsigned char)(raw >> (8 * i));
    bytes[8] = negative ? 0xff : 0x00;
    size_t n = 9;
    (void)wide;
    /* Drop bytes that only repeat the sign of the one below them. */
    while (n > 1 && bytes[n - 1] == (negative ? 0xff : 0x00) &&
           ((bytes[n - 2] & 0x80) != 0) == negative)
        n--;
    byte(w, 0x8a);
    byte(w, (uint8_t)n);
    emit(w, bytes, n);
}

void pickle_write_int_member(struct pickle_writer *w, const char *key, int64_t value)
{
    pickle_write_key(w, key);
    pickle_write_int(w, value);
    pickle_write_item_done(w);
}

void pickle_write_int(struct pickle_writer *w, int64_t value)
{
    commit_frame(w, false);
    if (value >= 0 && value <= 0xff) {
        byte(w, 'K');
        byte(w, (uint8_t)value);
    } else if (value >= 0 && value <= 0xffff) {
        byte(w, 'M');
        little(w, (uint64_t)value, 2);
    } else if (value >= INT32_MIN && value <= INT32_MAX) {
        byte(w, 'J');
        little(w, (uint64_t)(uint32_t)(int32_t)value, 4);
    } else {
        write_long(w, (uint64_t)value, value < 0, false);
    }
}

void pickle_write_uint(struct pickle_writer *w, uint64_t value)
{
    if (value <= INT64_MAX) {
        pickle_write_int(w, (int64_t)value);
        return;
    }
    commit_frame(w, false);
    write_long(w, value, false, true);
}

void pickle_write_float(struct pickle_writer *w, double value)
{
    commit_frame(w, false);
    uint64_t bits;
    memcpy(&bits, &value, sizeof bits);
    unsigned char bytes[9] = {'G'};
    for (int i = 0; i < 8; i++)
        bytes[1 + i] = (unsigned char)(bits >> (8 * (7 - i)));
    emit(w, bytes, 9);
}

void pickle_write_bool(struct pickle_writer *w, bool value)
{
    commit_frame(w, false);
    byte(w, value ? 0x88 : 0x89);
}

void pickle_write_none(struct pickle_writer *w)
{
    commit_frame(w, false);
    byte(w, 'N');
}

void pickle_write_pair(struct pickle_writer *w, int64_t a, int64_t b)
{
    pickle_write_int(w, a);
    pickle_write_int(w, b);
    byte(w, 0x86);
    memoize(w);
}
