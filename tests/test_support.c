#include "config.h"

#include "tests/test_support.h"

#include "model/format.h"
#include "model/load.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include <stdarg.h>
#include <setjmp.h>
#include <cmocka.h>

static char *path_join(const char *directory, const char *relative)
{
    size_t length = strlen(directory) + strlen(relative) + 2;
    char *path = malloc(length);
    if (path)
        snprintf(path, length, "%s/%s", directory, relative);
    return path;
}

char *test_source_path(const char *relative)
{
    const char *source = getenv("MEMTOP_SRCDIR");
    return path_join(source && source[0] ? source : ".", relative);
}

char *test_real_path(const char *name)
{
    char *real = test_source_path("data/real");
    char *path = real ? path_join(real, name) : NULL;
    free(real);
    if (path && access(path, R_OK) != 0) {
        free(path);
        return NULL;
    }
    return path;
}

static char directory[64];

int test_directory_create(void **state)
{
    (void)state;
    snprintf(directory, sizeof directory, "/tmp/memtop-test-XXXXXX");
    return mkdtemp(directory) ? 0 : -1;
}

int test_directory_remove(void **state)
{
    (void)state;
    char command[128];
    snprintf(command, sizeof command, "rm -rf '%s'", directory);
    return system(command) == 0 ? 0 : -1;
}

const char *test_directory(void)
{
    return directory;
}

struct snapshot test_snapshot(int64_t time_ps, int64_t heap_bytes)
{
    return (struct snapshot){.time_ps = time_ps, .heap_bytes = heap_bytes};
}

uint8_t *test_gzip_bytes(const void *bytes, size_t size, size_t *compressed_size)
{
    z_stream stream = {0};
    assert_int_equal(deflateInit2(&stream, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
    size_t capacity = deflateBound(&stream, size) + 64;
    uint8_t *out = malloc(capacity);
    assert_non_null(out);
    stream.next_in = (Bytef *)bytes;
    stream.avail_in = (uInt)size;
    stream.next_out = out;
    stream.avail_out = (uInt)capacity;
    assert_int_equal(deflate(&stream, Z_FINISH), Z_STREAM_END);
    *compressed_size = capacity - stream.avail_out;
    deflateEnd(&stream);
    return out;
}

uint8_t *test_read_file(const char *path, size_t *size)
{
    FILE *file = fopen(path, "rb");
    if (!file)
        return NULL;
    uint8_t *bytes = NULL;
    size_t used = 0, capacity = 0;
    for (;;) {
        if (used == capacity) {
            capacity = capacity ? capacity * 2 : 65536;
            uint8_t *grown = realloc(bytes, capacity);
            if (!grown) {
                free(bytes);
                fclose(file);
                return NULL;
            }
            bytes = grown;
        }
        size_t read = fread(bytes + used, 1, capacity - used, file);
        if (read == 0)
            break;
        used += read;
    }
    fclose(file);
    *size = used;
    return bytes;
}


struct test_draft *test_draft_new(void)
{
    struct test_draft *loaded = calloc(1, sizeof *loaded);
    assert_non_null(loaded);
    assert_true(profile_builder_init(&loaded->builder));
    assert_true(xprof_draft_init(&loaded->draft, &loaded->builder));
    return loaded;
}

struct profile *test_draft_finish(struct test_draft *loaded)
{
    assert_true(xprof_draft_finish(&loaded->draft));
    struct profile *profile = profile_builder_finish(&loaded->builder);
    assert_non_null(profile);
    free(loaded);
    return profile;
}

void test_draft_free(struct test_draft *loaded)
{
    if (!loaded)
        return;
    xprof_draft_free(&loaded->draft);
    profile_builder_discard(&loaded->builder);
    free(loaded);
}

const struct profile *test_draft_profile(const struct test_draft *loaded)
{
    return loaded->builder.profile;
}

uint32_t test_draft_intern(struct test_draft *loaded, const char *text)
{
    uint32_t id = xprof_draft_intern(&loaded->draft, text, strlen(text));
    assert_int_not_equal(id, STRING_ID_NONE);
    return id;
}

static void assert_same_text(const struct profile *a, uint32_t id_a, const struct profile *b,
                             uint32_t id_b)
{
    assert_string_equal(profile_text(a, id_a), profile_text(b, id_b));
}

/* Doubles compare by bits so NaN equals NaN and -0 differs from 0. */
static void assert_same_double(double a, double b)
{
    assert_memory_equal(&a, &b, sizeof a);
}

static void assert_columns_equal(const struct profile *a, const struct snapshot_columns *x,
                                 const struct profile *b, const struct snapshot_columns *y)
{
    assert_int_equal(x->count, y->count);
    for (size_t i = 0; i < x->count; i++) {
        assert_true(snapshot_columns_time(x, i) == snapshot_columns_time(y, i));
        assert_true(snapshot_columns_stack_bytes(x, i) == snapshot_columns_stack_bytes(y, i));
        assert_true(x->heap_bytes[i] == y->heap_bytes[i]);
        assert_true(snapshot_columns_free_bytes(x, i) == snapshot_columns_free_bytes(y, i));
        assert_same_double(x->fragmentation[i], y->fragmentation[i]);
        assert_true(snapshot_columns_peak_bytes_in_use(x, i) ==
                    snapshot_columns_peak_bytes_in_use(y, i));
        assert_int_equal(x->activity[i], y->activity[i]);
        assert_true(snapshot_columns_requested_bytes(x, i) ==
                    snapshot_columns_requested_bytes(y, i));
        assert_true(snapshot_columns_allocation_bytes(x, i) ==
                    snapshot_columns_allocation_bytes(y, i));
        assert_true(snapshot_columns_address(x, i) == snapshot_columns_address(y, i));
        assert_true(snapshot_columns_step_id(x, i) == snapshot_columns_step_id(y, i));
        assert_same_text(a, snapshot_columns_op_name(x, i), b,
                         snapshot_columns_op_name(y, i));
        assert_same_text(a, snapshot_columns_region_type(x, i), b,
                         snapshot_columns_region_type(y, i));
        assert_same_text(a, snapshot_columns_data_type(x, i), b,
                         snapshot_columns_data_type(y, i));
        assert_same_text(a, snapshot_columns_tensor_shape(x, i), b,
                         snapshot_columns_tensor_shape(y, i));
    }
}

static void assert_rows_equal(const struct profile *a, const struct allocation_row *x,
                              const struct profile *b, const struct allocation_row *y)
{
    assert_int_equal(x->origin, y->origin);
    assert_true(x->snapshot_index == y->snapshot_index);
    assert_true(x->special_index == y->special_index);
    assert_true(x->occurrences == y->occurrences);
    assert_true(x->allocation_bytes == y->allocation_bytes);
    assert_true(x->requested_bytes == y->requested_bytes);
    assert_same_text(a, x->op_name, b, y->op_name);
    assert_same_text(a, x->region_type, b, y->region_type);
    assert_same_text(a, x->data_type, b, y->data_type);
    assert_same_text(a, x->tensor_shape, b, y->tensor_shape);
    assert_true(x->step_id == y->step_id);
    assert_true(x->address == y->address);
    assert_int_equal(x->activity, y->activity);
    assert_int_equal(x->has_time, y->has_time);
    assert_true(x->time_ps == y->time_ps);
}

static void assert_summaries_equal(const struct allocator_summary *x,
                                   const struct allocator_summary *y)
{
    assert_true(x->capacity_bytes == y->capacity_bytes);
    assert_true(x->lifetime_peak_bytes == y->lifetime_peak_bytes);
    assert_true(x->peak.stack_bytes == y->peak.stack_bytes);
    assert_true(x->peak.heap_bytes == y->peak.heap_bytes);
    assert_true(x->peak.free_bytes == y->peak.free_bytes);
    assert_same_double(x->peak.fragmentation, y->peak.fragmentation);
    assert_true(x->peak.peak_bytes_in_use == y->peak.peak_bytes_in_use);
    assert_true(x->peak_time_ps == y->peak_time_ps);
    assert_true(x->peak_bytes == y->peak_bytes);
    assert_int_equal(x->allocations, y->allocations);
    assert_int_equal(x->deallocations, y->deallocations);
    assert_int_equal(x->derived, y->derived);
}

void test_assert_profiles_equal(const struct profile *a, const struct profile *b)
{
    assert_int_equal(a->version, b->version);
    assert_int_equal(a->num_hosts, b->num_hosts);
    assert_int_equal(a->allocator_count, b->allocator_count);
    for (size_t i = 0; i < a->allocator_count; i++) {
        const struct allocator *x = &a->allocators[i], *y = &b->allocators[i];
        assert_same_text(a, x->id, b, y->id);
        assert_columns_equal(a, &x->timeline, b, &y->timeline);
        assert_summaries_equal(&x->summary, &y->summary);
        assert_int_equal(x->row_count, y->row_count);
        for (size_t r = 0; r < x->row_count; r++)
            assert_rows_equal(a, &x->rows[r], b, &y->rows[r]);
        /* XProf's table kept beside the live set (issue 22). */
        assert_int_equal(x->rows_kind, y->rows_kind);
        assert_int_equal(x->live_allocations, y->live_allocations);
        assert_int_equal(x->xprof_kept, y->xprof_kept);
        assert_int_equal(x->xprof_row_count, y->xprof_row_count);
        for (size_t r = 0; r < x->xprof_row_count; r++)
            assert_rows_equal(a, &x->xprof_rows[r], b, &y->xprof_rows[r]);
    }
    assert_int_equal(a->hlo_module_count, b->hlo_module_count);
    for (size_t i = 0; i < a->hlo_module_count; i++) {
        const struct hlo_module *x = &a->hlo_modules[i], *y = &b->hlo_modules[i];
        assert_true(x->id == y->id);
        assert_true(x->start_time_ps == y->start_time_ps);
        assert_true(x->end_time_ps == y->end_time_ps);
        assert_same_text(a, x->name, b, y->name);
        assert_same_text(a, x->plane_name, b, y->plane_name);
    }
}

const char *test_shown(struct text text)
{
    static char shown[4096];
    format_safe_bytes(text, 0, shown, sizeof shown);
    return shown;
}

const char *test_warning(const struct profile *profile, size_t index)
{
    assert_true(index < profile->warning_count);
    return test_shown(profile_string(profile, profile->warnings[index]));
}

char *test_capture_output(void (*write)(FILE *, const struct profile *, const char *),
                          const struct profile *profile, const char *host)
{
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    assert_non_null(out);
    write(out, profile, host);
    fclose(out);
    return text;
}

struct profile *test_load_ok(const char *path)
{
    struct profile *profile = NULL;
    struct load_error error = {0};
    enum load_status status = profile_load(path, NULL, &profile, &error);
    if (status != LOAD_OK)
        fail_msg("%s: %s", path, error.message);
    return profile;
}
