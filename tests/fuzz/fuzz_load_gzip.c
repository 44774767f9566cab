/* fuzz_load_gzip: gzip input through profile_load_bytes() and
 * gzip_inflate().
 *
 * Input that starts with the gzip magic is loaded as it is (the corpus is
 * seeded with the demo .gz files). Anything else is a payload plus one
 * control byte (the last): the harness compresses the payload itself, then
 * damages the result or caps the inflated size as the control byte says,
 * so that most runs reach the inflater's interesting states instead of a
 * header error. Oracles: intact gzip inflates to exactly the payload and
 * loads exactly as the payload does; a cap below the payload's size is
 * refused as a decompression bomb; nothing inflates past its cap. */
#include "config.h"

#include "tests/fuzz/fuzz_common.h"

#include <zlib.h>

#include "model/decode/gzip.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum damage {
    DAMAGE_NONE,
    DAMAGE_TRUNCATE,     /* cut short */
    DAMAGE_FLIP,         /* one byte changed */
    DAMAGE_TWO_MEMBERS,  /* intact, but as two concatenated members */
};

struct control {
    enum damage damage;
    bool small_cap;  /* max_inflated_bytes below the payload's size */
    unsigned where;  /* where the damage goes, as a fraction in 1/16 */
};

static struct control control_from_byte(uint8_t byte)
{
    return (struct control){(enum damage)(byte & 3), (byte & 4) != 0, byte >> 4};
}

/* Appends one gzip member of bytes to *out (capacity already enough). */
static bool compress_member(const uint8_t *bytes, size_t size, uint8_t *out, size_t capacity,
                            size_t *used)
{
    z_stream stream = {0};
    if (deflateInit2(&stream, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return false;
    stream.next_in = (Bytef *)bytes;
    stream.avail_in = (uInt)size;
    stream.next_out = out + *used;
    stream.avail_out = (uInt)(capacity - *used);
    bool done = deflate(&stream, Z_FINISH) == Z_STREAM_END;
    *used = capacity - stream.avail_out;
    deflateEnd(&stream);
    return done;
}

static uint8_t *compress_payload(const uint8_t *payload, size_t size, bool two_members,
                                 size_t *compressed_size)
{
    size_t capacity = 2 * (compressBound((uLong)size) + 64);
    uint8_t *out = malloc(capacity);
    size_t used = 0;
    size_t half = two_members ? size / 2 : size;
    if (!out || !compress_member(payload, half, out, capacity, &used) ||
        (two_members && !compress_member(payload + half, size - half, out, capacity, &used))) {
        free(out);
        return NULL;
    }
    *compressed_size = used;
    return out;
}

/* A profile's shape, enough to tell two loads of the same data apart. */
static bool profiles_alike(const struct profile *a, const struct profile *b)
{
    if (a->allocator_count != b->allocator_count || a->version != b->version ||
        a->hlo_module_count != b->hlo_module_count)
        return false;
    for (size_t i = 0; i < a->allocator_count; i++)
        if (a->allocators[i].timeline.count != b->allocators[i].timeline.count ||
            a->allocators[i].row_count != b->allocators[i].row_count ||
            !text_equal(profile_string(a, a->allocators[i].id),
                        profile_string(b, b->allocators[i].id)))
            return false;
    return true;
}

static void check_inflate(const uint8_t *gzip, size_t gzip_size, const uint8_t *payload,
                          size_t payload_size, bool intact, uint64_t cap)
{
    uint8_t *inflated = NULL;
    size_t inflated_size = 0;
    struct load_error error = {0};
    enum load_status status = gzip_inflate(gzip, gzip_size, cap, &inflated, &inflated_size, &error);
    if (status != LOAD_OK) {
        fuzz_check_refusal(status, &error);
        fuzz_require(!intact || payload_size > cap, "intact gzip under its cap inflates");
        if (intact && status == LOAD_BAD_INPUT)
            fuzz_require(strstr(error.message, "decompression bomb") != NULL,
                         "a refusal for size says it is a likely decompression bomb");
        return;
    }
    fuzz_require(inflated_size <= cap, "nothing inflates past its cap");
    if (intact)
        fuzz_require(inflated_size == payload_size &&
                         (payload_size == 0 || memcmp(inflated, payload, payload_size) == 0),
                     "intact gzip inflates to exactly its payload");
    free(inflated);
}

static void check_compressed(const uint8_t *payload, size_t payload_size, struct control control)
{
    bool two_members = control.damage == DAMAGE_TWO_MEMBERS;
    size_t gzip_size;
    uint8_t *gzip = compress_payload(payload, payload_size, two_members, &gzip_size);
    if (!gzip)
        return;
    size_t where = gzip_size * control.where / 16;
    if (control.damage == DAMAGE_TRUNCATE)
        gzip_size = where > 0 ? where : 1;
    else if (control.damage == DAMAGE_FLIP)
        gzip[where] ^= (uint8_t)(0x55 + control.where);
    bool intact = control.damage == DAMAGE_NONE || control.damage == DAMAGE_TWO_MEMBERS;
    uint64_t cap = control.small_cap ? payload_size / 2 + 1 : (uint64_t)payload_size + 64;
    check_inflate(gzip, gzip_size, payload, payload_size, intact, cap);

    struct load_options options = {.max_inflated_bytes = cap};
    struct load_error error = {0};
    struct profile *loaded = NULL;
    enum load_status status =
        profile_load_bytes(gzip, gzip_size, "fuzz.gz", &options, &loaded, &error);
    /* The payload loaded directly: what intact gzip under its cap must match
     * (unless the payload is itself gzip, which is not inflated twice). */
    if (intact && payload_size > 0 && payload_size <= cap &&
        !gzip_is_compressed(payload, payload_size)) {
        struct load_error direct_error = {0};
        struct profile *direct = NULL;
        enum load_status direct_status =
            profile_load_bytes(payload, payload_size, "fuzz", NULL, &direct, &direct_error);
        fuzz_require(status == direct_status, "gzip loads exactly as its payload does");
        if (status == LOAD_OK) {
            fuzz_require(loaded->gzipped && !direct->gzipped, "gzip is recorded");
            fuzz_require(profiles_alike(loaded, direct), "gzip loads the payload's profile");
        }
        profile_free(direct);
    }
    fuzz_check_outcome(status, loaded, &error);
    free(gzip);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (gzip_is_compressed(data, size)) {
        struct load_options options = {.max_inflated_bytes = (uint64_t)64 << 20};
        struct load_error error = {0};
        struct profile *loaded = NULL;
        enum load_status status =
            profile_load_bytes(data, size, "fuzz.gz", &options, &loaded, &error);
        fuzz_check_outcome(status, loaded, &error);
        check_inflate(data, size, NULL, 0, false, (uint64_t)1 << 20);
        return 0;
    }
    if (size == 0)
        return 0;
    check_compressed(data, size - 1, control_from_byte(data[size - 1]));
    return 0;
}
