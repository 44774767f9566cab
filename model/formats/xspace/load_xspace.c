/* load_xspace: XSpace files (.xplane.pb), what TensorFlow >= 2.4, JAX and
 * PyTorch/XLA write, read with XProf's numbers (docs/formats/xspace.md).
 *
 * The XSpace is walked once over the input (mapped by load.c): every
 * plane's first pass (load_xspace_plane.c), then by its role: the first
 * /host:CPU plane's lines are walked for memory events and step grouping,
 * other host-side planes for step grouping only when their names say they
 * can matter, TPU and GPU planes for their XLA Modules lines; everything
 * else is skipped by length. Then XProf's grouping and memory profile
 * (load_xspace_forest.c, load_xspace_profile.c) finish the profile.
 *
 * Also here: the row for Riegeli XSpace (.xplane.riegeli), which newer XLA
 * writes and memtop refuses with a clear message for now. */
#include "config.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "model/util/array_grow.h"
#include "model/formats/xspace/xspace_internal.h"

struct xspace_modules {
    struct hlo_module *tpu, *gpu;
    size_t tpu_count, tpu_capacity, gpu_count, gpu_capacity;
};

/* "TPU:0" for "/device:TPU:0", interned. */
static uint32_t device_name(struct xspace_loader *loader, const struct xspace_plane *plane)
{
    size_t skip = strlen("/device:");
    return string_table_intern(loader->strings, (const char *)loader->wire.bytes +
                                                    plane->name.start + skip,
                               plane->name.end - plane->name.start - skip);
}

static enum load_status plane_read(struct xspace_loader *loader, const struct wire_field *field,
                                   bool *host_found, struct xspace_modules *modules)
{
    struct xspace_plane plane;
    enum load_status status =
        xspace_plane_scan(&loader->wire, field->offset, field->start, field->end, &plane);
    if (status != LOAD_OK) {
        xspace_plane_free(&plane);
        return status;
    }
    loader->loop_ops |= plane.has_loop_op;
    loader->grouped |= plane.has_group_id;
    enum xspace_plane_role role = xspace_plane_role(&loader->wire, &plane, *host_found);
    if (role == XSPACE_PLANE_HOST) {
        *host_found = true;
        status = xspace_walk_plane(loader, &plane, XSPACE_WALK_HOST);
    } else if (role == XSPACE_PLANE_OTHER && plane.has_grouping) {
        status = xspace_walk_plane(loader, &plane, XSPACE_WALK_GROUPING);
    } else if (role == XSPACE_PLANE_TPU || role == XSPACE_PLANE_GPU) {
        uint32_t name = device_name(loader, &plane);
        bool tpu = role == XSPACE_PLANE_TPU;
        status = name == STRING_ID_NONE
                     ? xspace_fail_memory(loader, field->offset)
                     : xspace_plane_modules(&loader->wire, &plane, loader->builder, name,
                                            tpu ? &modules->tpu : &modules->gpu,
                                            tpu ? &modules->tpu_count : &modules->gpu_count,
                                            tpu ? &modules->tpu_capacity
                                                : &modules->gpu_capacity);
    }
    xspace_plane_free(&plane);
    load_tracker_advance(loader->tracker, field->end);
    return status;
}

/* XProf's modules (TPU planes, ids from 0 in file order), then the GPU
 * planes' that XProf leaves out, numbered on. */
static bool modules_add(struct profile_builder *builder, struct xspace_modules *modules)
{
    int64_t id = 0;
    for (size_t i = 0; i < modules->tpu_count; i++) {
        modules->tpu[i].id = id++;
        if (!profile_builder_add_hlo_module(builder, &modules->tpu[i]))
            return false;
    }
    for (size_t i = 0; i < modules->gpu_count; i++) {
        modules->gpu[i].id = id++;
        if (!profile_builder_add_hlo_module(builder, &modules->gpu[i]))
            return false;
    }
    return true;
}

static const char *const space_field_names[] = {
    [1] = "planes", [2] = "errors", [3] = "warnings", [4] = "hostnames",
};

static enum load_status space_walk(struct xspace_loader *loader, struct xspace_modules *modules,
                                   bool *host_found)
{
    struct wire_field field;
    for (size_t position = 0; position < loader->wire.size;) {
        enum load_status status =
            wire_read_field(&loader->wire, &position, loader->wire.size, &field);
        if (status == LOAD_OK && field.number >= 1 && field.number <= 4)
            status = wire_expect(&loader->wire, &field, WIRE_LENGTH,
                                 space_field_names[field.number]);
        if (status == LOAD_OK && field.number == 1)
            status = plane_read(loader, &field, host_found, modules);
        if (status != LOAD_OK)
            return status;
    }
    return LOAD_OK;
}

#define NO_MEMORY_EVENTS                                                                   \
    "no memory events in the host plane: capture with host_tracer_level >= 2 "             \
    "(jax.profiler.ProfileOptions(host_tracer_level=2), "                                  \
    "tf.profiler.experimental.ProfilerOptions(host_tracer_level=2)); "                     \
    "JAX 0.4.29-0.4.31 on GPU records none (jax-ml/jax#22890)"

/* A length past the end of the whole file: the file is cut short (a
 * capture still being written, a copy in progress), said in those words
 * before the wire reader's. */
static void xspace_say_cut(struct load_error *error)
{
    if (!error->has_offset || !strstr(error->message, "runs past the end of the data"))
        return;
    char said[LOAD_ERROR_SIZE];
    const char *wire_words = strstr(error->message, ": ");
    snprintf(said, sizeof said, "%s", wire_words ? wire_words + 2 : error->message);
    load_error_at(error, error->offset,
                  "the file ends early (still being written or copied?): %s", said);
}

static enum load_status xspace_load(const struct load_input *input,
                                    struct profile_builder *builder, struct load_error *error)
{
    struct xspace_loader loader = {
        .wire = {.bytes = input->bytes, .size = input->size, .error = error},
        .builder = builder,
        .strings = profile_builder_strings(builder),
        .tracker = input->tracker,
    };
    for (size_t i = 0; i < sizeof loader.data_type_ids / sizeof *loader.data_type_ids; i++)
        loader.data_type_ids[i] = STRING_ID_NONE;
    struct xspace_modules modules = {0};
    bool host_found = false;
    enum load_status status = space_walk(&loader, &modules, &host_found);
    if (status == LOAD_BAD_INPUT)
        xspace_say_cut(error);
    if (status == LOAD_OK && !host_found) {
        load_error_set(error, "no host plane: this capture has no memory events");
        status = LOAD_BAD_INPUT;
    } else if (status == LOAD_OK && loader.memory_events == 0) {
        load_error_set(error, NO_MEMORY_EVENTS);
        status = LOAD_BAD_INPUT;
    }
    if (status == LOAD_OK &&
        (!xspace_finish_profile(&loader) || !modules_add(builder, &modules))) {
        load_error_set(error, "out of memory");
        status = LOAD_NO_MEMORY;
    }
    free(modules.tpu);
    free(modules.gpu);
    xspace_loader_free(&loader);
    return status;
}

/* ---- the probe ---- */

/* Fields of the first plane tell it from a MemoryProfile's first map
 * entry ({key = 1: string, value = 2}): an XPlane has an int64 id (1), a
 * name (2), lines, maps and stats (3..6). Read leniently (a truncated file
 * is still recognised, so that its error names the place). */
static unsigned probe_plane(const uint8_t *bytes, size_t start, size_t end)
{
    struct load_error ignored;
    const struct wire wire = {bytes, end, &ignored};
    struct wire_field field = {0};
    unsigned fields = 0;
    for (size_t position = start; position < end && fields < 16; fields++) {
        if (wire_read_tag(&wire, &position, end, &field) != LOAD_OK)
            break;
        if (field.number == 1)
            return field.type == WIRE_VARINT ? PROBE_LIKELY : PROBE_NO;
        if (field.number >= 3 && field.number <= 6 && field.type == WIRE_LENGTH)
            return PROBE_LIKELY;
        if (field.number == 2 && field.type == WIRE_LENGTH) {
            uint64_t length;
            if (wire_read_varint(&wire, &position, end, &length) != LOAD_OK)
                break;
            /* "/host:CPU", "/device:GPU:0", "Task Environment" */
            if (length > 0 && position < end &&
                (bytes[position] == '/' || bytes[position] == 'T'))
                return PROBE_LIKELY;
            break;
        }
        if (field.type != WIRE_VARINT || wire_read_varint(&wire, &position, end,
                                                          &(uint64_t){0}) != LOAD_OK)
            break;
    }
    return PROBE_FALLBACK;
}

/* Content first: PROBE_LIKELY for an XPlane, PROBE_NO for a MemoryProfile's
 * map entry, else PROBE_FALLBACK, a tie with the MemoryProfile row that
 * the file name breaks (so that broken bytes named .xplane.pb are told
 * what is wrong with them as an XSpace). */
static unsigned xspace_probe(const uint8_t *bytes, size_t size)
{
    struct load_error ignored;
    const struct wire wire = {bytes, size, &ignored};
    struct wire_field field = {0};
    size_t position = 0;
    if (size == 0 || wire_head_is_text(bytes, size))
        return PROBE_NO;
    if (wire_read_tag(&wire, &position, size, &field) != LOAD_OK ||
        field.type != WIRE_LENGTH || field.number > 4)
        return PROBE_FALLBACK;
    uint64_t length;
    if (wire_read_varint(&wire, &position, size, &length) != LOAD_OK)
        return PROBE_FALLBACK;
    if (field.number != 1)
        return PROBE_FALLBACK; /* errors, warnings or hostnames first: no planes */
    size_t end = length < size - position ? position + (size_t)length : size;
    return probe_plane(bytes, position, end);
}

static const char *const xspace_suffixes[] = {".xplane.pb", ".xplane.pb.gz", NULL};

const struct input_format xspace_format = {
    .name = "xspace",
    .description = "XSpace, the profilers' raw capture (.xplane.pb: TensorFlow >= 2.4, JAX, "
                   "PyTorch/XLA)",
    .probe = xspace_probe,
    .load = xspace_load,
    .suffixes = xspace_suffixes,
    .empty_file_message =
        "empty: protobuf cannot hold a capture over 2 GiB; XProf writes an empty file then",
};

/* ---- Riegeli XSpace: refused for now ---- */

/* Every Riegeli/records file starts with the same 64 bytes (its file
 * signature chunk); the first 16 are enough. */
static const uint8_t riegeli_signature[16] = {
    0x83, 0xaf, 0x70, 0xd1, 0x0d, 0x88, 0x4a, 0x3f, 0, 0, 0, 0, 0, 0, 0, 0,
};

static unsigned riegeli_probe(const uint8_t *bytes, size_t size)
{
    if (size >= sizeof riegeli_signature &&
        memcmp(bytes, riegeli_signature, sizeof riegeli_signature) == 0)
        return PROBE_CERTAIN;
    /* A file named .xplane.riegeli without the signature is refused by
     * its name too; text is never one. */
    return size > 0 && !wire_head_is_text(bytes, size) ? PROBE_FALLBACK : PROBE_NO;
}

static enum load_status riegeli_load(const struct load_input *input,
                                     struct profile_builder *builder, struct load_error *error)
{
    (void)input;
    (void)builder;
    load_error_set(error, "a Riegeli XSpace (.xplane.riegeli): not supported yet; a capture "
                          "saved as .xplane.pb opens");
    return LOAD_BAD_INPUT;
}

static const char *const riegeli_suffixes[] = {".xplane.riegeli", NULL};

const struct input_format xspace_riegeli_format = {
    .name = "xspace-riegeli",
    .description = "XSpace in Riegeli records (.xplane.riegeli, newer XLA): not supported yet",
    .probe = riegeli_probe,
    .load = riegeli_load,
    .suffixes = riegeli_suffixes,
    .refuses_only = true,
};
