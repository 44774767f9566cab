/* fuzz_torch_snapshot: the PyTorch memory snapshot reader on any bytes,
 * through its format row (whatever the probe would say) and through
 * profile_load_bytes(); see tests/fuzz/fuzz_common.h for what is checked
 * (a refusal is one terminal-safe line, a profile is whole and its
 * reports write). One more promise: the pickle reader alone, on the same
 * bytes, agrees with the format on whether the pickle is cut, broken or
 * holds objects; and says the same of the bytes with more after them
 * (its loop runs opcodes in line only away from the end of the file, so
 * that compares the in-line opcodes with the checked ones). And the
 * table at the peak is what a replay of every address makes. */
#include "config.h"

#include "tests/fuzz/fuzz_common.h"

#include <string.h>

#include "model/decode/pickle.h"
#include "model/input_format.h"
#include "model/load_internal.h"
#include "model/query/live_set.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

extern const struct input_format torch_snapshot_format;

/* Bytes after the end of a pickle that is not cut change nothing: the
 * same status, root kind, or refusal at the same offset in the same words. */
static void fuzz_check_padded(const uint8_t *data, size_t size, enum pickle_status decoded,
                              const struct pickle_value *root, const struct pickle_error *error)
{
    enum { PAD = 32 };
    if (decoded == PICKLE_CUT || decoded == PICKLE_NO_MEMORY)
        return;
    uint8_t *copy = malloc(size + PAD);
    if (!copy)
        return;
    memcpy(copy, data, size);
    memset(copy + size, '.', PAD);
    struct pickle_document *document = NULL;
    struct pickle_error again = {0};
    enum pickle_status status = pickle_decode(copy, size + PAD, NULL, &document, &again);
    if (status != PICKLE_NO_MEMORY) {
        fuzz_require(status == decoded, "bytes after a pickle change nothing");
        if (status == PICKLE_OK)
            fuzz_require(pickle_document_root(document).kind == root->kind,
                         "bytes after a pickle change nothing (its root)");
        else
            fuzz_require(again.offset == error->offset &&
                             strcmp(again.message, error->message) == 0,
                         "bytes after a pickle change nothing (the refusal)");
    }
    pickle_document_free(document);
    free(copy);
}

static void fuzz_check_decoder(const uint8_t *data, size_t size, enum load_status status)
{
    struct pickle_document *document = NULL;
    struct pickle_error error = {0};
    enum pickle_status decoded = pickle_decode(data, size, NULL, &document, &error);
    if (decoded == PICKLE_OK) {
        struct pickle_value root = pickle_document_root(document);
        fuzz_check_padded(data, size, decoded, &root, &error);
        pickle_document_free(document);
        return;
    }
    fuzz_check_padded(data, size, decoded, NULL, &error);
    fuzz_require(document == NULL, "a failed decode hands back nothing");
    fuzz_require(error.offset <= size, "the offset of a decode error is inside the file");
    /* Without a consumer nothing is taken, so a pickle the format took
     * whole is one the decoder reads too. */
    fuzz_require(status != LOAD_OK || decoded == PICKLE_NO_MEMORY,
                 "what the format reads, the decoder reads");
}

/* The replay on a thread of its own gives what the replay inline gives:
 * the same status and message, the same timelines. */
static void fuzz_check_replay_thread(const uint8_t *data, size_t size)
{
    struct profile *one = NULL, *two = NULL;
    struct load_error one_error = {0}, two_error = {0};
    enum load_status one_status =
        profile_load_bytes(data, size, "fuzz.pickle", NULL, &one, &one_error);
    load_torch_snapshot_set_pipeline_threshold(1);
    enum load_status two_status =
        profile_load_bytes(data, size, "fuzz.pickle", NULL, &two, &two_error);
    load_torch_snapshot_set_pipeline_threshold(0);
    fuzz_require(one_status == two_status, "the replay thread gives the status inline gives");
    if (one_status != LOAD_OK)
        fuzz_require(strcmp(one_error.message, two_error.message) == 0,
                     "the replay thread gives the message inline gives");
    if (one_status == LOAD_OK && two_status == LOAD_OK) {
        fuzz_require(one->allocator_count == two->allocator_count,
                     "the replay thread finds the allocators inline finds");
        for (size_t a = 0; a < one->allocator_count; a++) {
            const struct snapshot_columns *x = &one->allocators[a].timeline;
            const struct snapshot_columns *y = &two->allocators[a].timeline;
            fuzz_require(x->count == y->count, "the replay thread reads as many entries");
            for (size_t i = 0; i < x->count; i++)
                fuzz_require(snapshot_columns_time(x, i) == snapshot_columns_time(y, i) &&
                                 x->heap_bytes[i] == y->heap_bytes[i] &&
                                 snapshot_columns_free_bytes(x, i) ==
                                     snapshot_columns_free_bytes(y, i),
                             "the replay thread replays the same timeline");
            fuzz_require(one->allocators[a].row_count == two->allocators[a].row_count,
                         "the replay thread finds the same rows");
        }
    }
    profile_free(one);
    profile_free(two);
}

/* Entries read from their bytes (claims, the default) give what the
 * dicts the reader builds give: the same status and message, the same
 * timelines and rows. */
static void fuzz_check_claims(const uint8_t *data, size_t size)
{
    struct profile *claimed = NULL, *read = NULL;
    struct load_error claimed_error = {0}, read_error = {0};
    enum load_status claimed_status =
        profile_load_bytes(data, size, "fuzz.pickle", NULL, &claimed, &claimed_error);
    load_torch_snapshot_set_claims(false);
    enum load_status read_status =
        profile_load_bytes(data, size, "fuzz.pickle", NULL, &read, &read_error);
    load_torch_snapshot_set_claims(true);
    fuzz_require(claimed_status == read_status, "claims give the status the reader gives");
    if (claimed_status != LOAD_OK)
        fuzz_require(strcmp(claimed_error.message, read_error.message) == 0,
                     "claims give the message the reader gives");
    if (claimed_status == LOAD_OK && read_status == LOAD_OK) {
        fuzz_require(claimed->allocator_count == read->allocator_count,
                     "claims find the allocators the reader finds");
        for (size_t a = 0; a < claimed->allocator_count; a++) {
            const struct snapshot_columns *x = &claimed->allocators[a].timeline;
            const struct snapshot_columns *y = &read->allocators[a].timeline;
            fuzz_require(x->count == y->count, "claims read as many entries");
            for (size_t i = 0; i < x->count; i++)
                fuzz_require(snapshot_columns_time(x, i) == snapshot_columns_time(y, i) &&
                                 x->heap_bytes[i] == y->heap_bytes[i] &&
                                 snapshot_columns_address(x, i) == snapshot_columns_address(y, i) &&
                                 snapshot_columns_requested_bytes(x, i) ==
                                     snapshot_columns_requested_bytes(y, i) &&
                                 snapshot_columns_site(x, i) == snapshot_columns_site(y, i),
                             "claims replay the same timeline");
            fuzz_require(claimed->allocators[a].row_count == read->allocators[a].row_count,
                         "claims find the same rows");
        }
    }
    profile_free(claimed);
    profile_free(read);
}

/* The table at the peak, made from what the trace's replay found live
 * there (ts_trace_peak_live), is the one a replay of every address
 * makes: the same rows in the same order. */
static void fuzz_check_peak_table(struct profile *profile)
{
    for (size_t a = 0; a < profile->allocator_count; a++) {
        const struct allocator *allocator = &profile->allocators[a];
        if (allocator->rows_kind != ALLOCATOR_ROWS_LIVE)
            continue;
        struct live_rows live = {0};
        if (live_rows_at_once(profile, allocator, allocator->summary.peak_time_ps, &live) !=
            LIVE_OK) {
            live_rows_free(&live);
            continue;
        }
        fuzz_require(live.count == allocator->row_count,
                     "the table at the peak has the rows a replay finds");
        for (size_t r = 0; r < live.count && r < allocator->row_count; r++) {
            const struct allocation_row *x = &live.rows[r], *y = &allocator->rows[r];
            fuzz_require(x->snapshot_index == y->snapshot_index &&
                             x->special_index == y->special_index &&
                             x->occurrences == y->occurrences &&
                             x->allocation_bytes == y->allocation_bytes &&
                             x->address == y->address,
                         "the table at the peak is the one a replay makes");
        }
        live_rows_free(&live);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct profile *profile;
    enum load_status status;
    struct load_error error = {0};
    if (!fuzz_read_with(&torch_snapshot_format, "fuzz.pickle", data, size, &profile, &status,
                        &error))
        return 0;
    if (profile && profile->allocator_count > 0) {
        fuzz_check_peak_table(profile);
        fuzz_check_outcome(LOAD_OK, profile, &error);
    } else
        profile_free(profile);
    fuzz_check_decoder(data, size, status);
    /* A thread per input slows fuzzing: one input in 16, by its last byte. */
    if (size > 0 && data[size - 1] % 16 == 0)
        fuzz_check_replay_thread(data, size);
    /* Claims against the reader's dicts: one input in 4. */
    if (size > 0 && data[size / 2] % 4 == 1)
        fuzz_check_claims(data, size);
    fuzz_check_whole_path(data, size, "fuzz.pickle");
    return 0;
}
