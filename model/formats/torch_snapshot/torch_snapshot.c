/* torch_snapshot: the format row of PyTorch CUDA memory snapshots, the
 * pickle torch.cuda.memory._dump_snapshot() writes (memory_viz's input).
 *
 * Owns: the probe (a pickle of protocol 2 to 5, whatever the file is
 * called), the load (the pickle reader with the trace entries taken as
 * they come, then the snapshot's parts, then one allocator "cuda:N" per
 * device that has entries or segments, in device order) and the messages
 * that tell a pickle memtop does not read from a broken one.
 * Called by: model/input_formats.c (the row), load.c through it.
 * Must not: execute anything from the file (the pickle reader refuses
 * classes and functions); replay (torch_snapshot_replay.c does). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/formats/torch_snapshot/torch_snapshot_internal.h"
#include "model/load_internal.h"
#include "model/profile_builder.h"
#include "model/string_table.h"

static unsigned torch_snapshot_probe(const uint8_t *bytes, size_t size)
{
    /* PROTO 2..5: Python's pickler (4, or 5 from Python 3.14) or
     * TorchScript's (2). Any pickle is claimed, so that one of something
     * else is told as such rather than as a broken protobuf. */
    return size >= 3 && bytes[0] == 0x80 && bytes[1] >= 2 && bytes[1] <= 5 ? PROBE_CERTAIN
                                                                            : PROBE_NO;
}

static bool claims_on = true;

void load_torch_snapshot_set_claims(bool claims)
{
    claims_on = claims;
}

static void advance(void *context, size_t offset)
{
    struct ts_load *load = context;
    load->offset = offset;
    load_tracker_advance(load->input->tracker, offset);
}

static enum load_status decode_failed(struct ts_load *load, const struct pickle_error *error)
{
    switch (error->status) {
    case PICKLE_NO_MEMORY:
        return ts_no_memory(load);
    case PICKLE_OBJECTS:
        load_error_set(load->error,
                       "a pickle, but it holds objects memtop does not read (%s at offset %llu)",
                       error->message, (unsigned long long)error->offset);
        if (load->error) {
            load->error->offset = error->offset;
            load->error->has_offset = true;
        }
        return LOAD_BAD_INPUT;
    case PICKLE_CUT:
        load_error_at(load->error, error->offset, "%s", error->message);
        return LOAD_BAD_INPUT;
    default:
        load_error_at(load->error, error->offset, "a broken pickle: %s", error->message);
        return LOAD_BAD_INPUT;
    }
}

static enum load_status not_a_snapshot(struct ts_load *load, const char *why)
{
    return ts_bad(load, "a pickle, but not a PyTorch memory snapshot (%s)", why);
}

static bool device_listed(const int64_t *devices, size_t count, int64_t device)
{
    for (size_t i = 0; i < count; i++)
        if (devices[i] == device)
            return true;
    return false;
}

static int compare_devices(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Whether a device after the i-th of `devices` has the same trace (a
 * pickle may name one list twice). */
static bool trace_used_later(struct ts_trace **traces, size_t trace_count, const int64_t *devices,
                             size_t count, size_t i, const struct ts_trace *trace)
{
    for (size_t j = i + 1; j < count; j++)
        if (devices[j] >= 0 && (size_t)devices[j] < trace_count && traces[devices[j]] == trace)
            return true;
    return false;
}

/* The devices with entries or segments, in order, each built. */
static enum load_status build_devices(struct ts_load *load, struct ts_trace **traces,
                                      size_t trace_count)
{
    int64_t *devices = malloc((trace_count + load->segment_count + 1) * sizeof *devices);
    if (!devices)
        return ts_no_memory(load);
    size_t count = 0;
    for (size_t d = 0; d < trace_count; d++)
        if (traces[d]->count)
            devices[count++] = (int64_t)d;
    for (size_t s = 0; s < load->segment_count; s++)
        if (!device_listed(devices, count, load->segments[s].device))
            devices[count++] = load->segments[s].device;
    qsort(devices, count, sizeof *devices, compare_devices);
    enum load_status status = LOAD_OK;
    for (size_t i = 0; status == LOAD_OK && i < count; i++) {
        int64_t d = devices[i];
        struct ts_trace *trace = d >= 0 && (size_t)d < trace_count ? traces[d] : NULL;
        bool last_use = !trace || !trace_used_later(traces, trace_count, devices, count, i, trace);
        status = ts_build_device(load, d, trace, last_use);
        /* The device's timeline holds what its entries said: the trace
         * goes before the next device's timeline is made (the peak of
         * memory). */
        if (trace && last_use)
            ts_trace_release(load, trace);
    }
    free(devices);
    if (status == LOAD_OK && count == 0)
        status = ts_bad(load, "a PyTorch memory snapshot with no trace entries and no segments "
                              "(recorded with _record_memory_history off?)");
    return status;
}

static enum load_status read_traces(struct ts_load *load, const struct pickle_value *list)
{
    size_t count;
    const struct pickle_value *items = pickle_items(list, &count);
    if (list && (list->kind != PICKLE_LIST || (count && !items)))
        return not_a_snapshot(load, "device_traces is not a list of lists");
    struct ts_trace **traces = malloc((count ? count : 1) * sizeof *traces);
    if (!traces)
        return ts_no_memory(load);
    /* Reading a list the reader kept adds a trace, which may move the
     * ones found before: the pointers are taken once every list is read. */
    for (int pass = 0; pass < 2; pass++)
        for (size_t d = 0; d < count; d++) {
            traces[d] = ts_trace_of(load, &items[d]);
            if (!traces[d]) {
                free(traces);
                return not_a_snapshot(load, "a device trace holds something other than entries");
            }
        }
    /* Everything is read out of the pickle: its objects go before the
     * devices' rows and segments are made (the peak of memory). */
    pickle_document_free(load->document);
    load->document = NULL;
    ts_frames_forget(load);
    enum load_status status = build_devices(load, traces, count);
    free(traces);
    return status;
}

static enum load_status warn(struct ts_load *load)
{
    char line[160];
    if (load->entries_without_time &&
        !profile_builder_add_warning(load->builder,
                                     "the trace entries have no time_us (PyTorch before 2.2): "
                                     "the time axis counts entries, one a microsecond"))
        return ts_no_memory(load);
    if (load->unknown_actions) {
        snprintf(line, sizeof line, "%zu trace entries have an action memtop does not know: "
                                    "kept on the timeline, with no effect",
                 load->unknown_actions);
        if (!profile_builder_add_warning(load->builder, line))
            return ts_no_memory(load);
    }
    return LOAD_OK;
}

static enum load_status build(struct ts_load *load, const struct pickle_value *root)
{
    const struct pickle_value *segments = root, *traces = NULL, *annotations = NULL;
    if (root->kind == PICKLE_DICT) {
        /* Other keys (allocator_settings, and whatever PyTorch adds) are ignored. */
        segments = pickle_dict_get(root, "segments");
        traces = pickle_dict_get(root, "device_traces");
        annotations = pickle_dict_get(root, "external_annotations");
        if (!segments && !traces)
            return not_a_snapshot(load, "a dict without segments or device_traces");
    } else if (root->kind != PICKLE_LIST) {
        /* A bare list is a PyTorch 1.13 dump: the segments alone. */
        return not_a_snapshot(load, "neither a dict nor a list of segments");
    }
    enum load_status status = segments ? ts_read_segments(load, segments) : LOAD_OK;
    if (status == LOAD_OK && annotations)
        status = ts_read_annotations(load, annotations);
    if (status == LOAD_OK)
        status = read_traces(load, traces);
    if (status == LOAD_OK)
        status = ts_add_spans(load);
    return status == LOAD_OK ? warn(load) : status;
}

/* One reading of the file, with the entries read from their bytes
 * (claims) or not; *misplaced: claimed entries went somewhere no list
 * took them from (nothing is built then: the caller reads again). */
static enum load_status load_pass(const struct load_input *input,
                                  struct profile_builder *builder, struct load_error *error,
                                  bool claims, bool *misplaced)
{
    struct ts_load load = {
        .input = input,
        .builder = builder,
        .strings = profile_builder_strings(builder),
        .error = error,
        .context_id = STRING_ID_NONE,
        .claim_context = STRING_ID_NONE,
    };
    struct pickle_consumer consumer = {
        .context = &load,
        .take_items = ts_take_items,
        .advance = advance,
        .claim_dict = claims ? ts_claim_entry : NULL,
    };
    struct pickle_document *document = NULL;
    struct pickle_error pickle_error;
    enum load_status status;
    *misplaced = false;
    load.batch = malloc(sizeof *load.batch);
    if (!load.batch)
        return ts_no_memory(&load);
    ts_pipe_start(&load);
    enum pickle_status decoded =
        pickle_decode(input->bytes, input->size, &consumer, &document, &pickle_error);
    /* The replay thread's last batches, before anything reads the traces. */
    bool replayed = ts_pipe_finish(&load);
    *misplaced = (decoded == PICKLE_OK && load.claimed_count) || load.claims_misplaced;
    if (*misplaced) {
        status = LOAD_BAD_INPUT;
        pickle_document_free(document);
    } else if (decoded != PICKLE_OK) {
        status = decode_failed(&load, &pickle_error);
    } else if (!replayed) {
        status = ts_no_memory(&load);
        pickle_document_free(document);
    } else {
        struct pickle_value root = pickle_document_root(document);
        load.document = document;
        status = build(&load, &root);
        pickle_document_free(load.document);
    }
    ts_load_free(&load);
    return status;
}

static enum load_status torch_snapshot_load(const struct load_input *input,
                                            struct profile_builder *builder,
                                            struct load_error *error)
{
    bool misplaced;
    enum load_status status = load_pass(input, builder, error, claims_on, &misplaced);
    if (misplaced) {
        /* Entries read from their bytes that no list took: their dicts
         * went somewhere else than a trace. Read again, the reader
         * building every dict, so that the file is read or refused as
         * those dicts, where they are, say (a rare file: twice the time). */
        if (profile_builder_restart(builder)) {
            status = load_pass(input, builder, error, false, &misplaced);
        } else {
            load_error_set(error, "out of memory");
            status = LOAD_NO_MEMORY;
        }
    }
    load_tracker_finish(input->tracker);
    return status;
}

/* "rank<N>" from the last "rank" followed by digits in the stem, else
 * from the digits it ends with (`memory_trace_3`); NULL otherwise. */
static char *torch_snapshot_host_name(const char *stem, size_t length)
{
    size_t digits_at = length, digits = 0;
    for (size_t i = 0; i + 4 < length; i++)
        if ((stem[i] == 'r' || stem[i] == 'R') && strncasecmp(stem + i, "rank", 4) == 0) {
            size_t n = 0;
            while (i + 4 + n < length && stem[i + 4 + n] >= '0' && stem[i + 4 + n] <= '9')
                n++;
            if (n) {
                digits_at = i + 4;
                digits = n;
            }
        }
    if (!digits) {
        while (digits < length && stem[length - 1 - digits] >= '0' &&
               stem[length - 1 - digits] <= '9')
            digits++;
        digits_at = length - digits;
        /* A stem that is all digits, or ends in digits after a letter
         * run with no separator ("snap2"), is a name, not a rank. */
        if (!digits || digits == length ||
            (stem[digits_at - 1] != '_' && stem[digits_at - 1] != '-' &&
             stem[digits_at - 1] != '.'))
            return NULL;
    }
    while (digits > 1 && stem[digits_at] == '0') { /* rank007 is rank7 */
        digits_at++;
        digits--;
    }
    char *name = malloc(digits + 5);
    if (name) {
        memcpy(name, "rank", 4);
        memcpy(name + 4, stem + digits_at, digits);
        name[4 + digits] = '\0';
    }
    return name;
}

static const char *const torch_snapshot_suffixes[] = {".pickle", ".pickle.gz", ".pkl", ".pkl.gz",
                                                      NULL};

const struct input_format torch_snapshot_format = {
    .name = "torch-snapshot",
    .description = "PyTorch CUDA memory snapshot (torch.cuda.memory._dump_snapshot, "
                   "memory_viz's pickle)",
    .probe = torch_snapshot_probe,
    .load = torch_snapshot_load,
    .suffixes = torch_snapshot_suffixes,
    .host_name = torch_snapshot_host_name,
};
