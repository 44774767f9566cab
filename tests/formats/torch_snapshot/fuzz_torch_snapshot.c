/* fuzz_torch_snapshot: the PyTorch memory snapshot reader on any bytes,
 * through its format row (whatever the probe would say) and through
 * profile_load_bytes(); see tests/fuzz/fuzz_common.h for what is checked
 * (a refusal is one terminal-safe line, a profile is whole and its
 * reports write). One more promise: the pickle reader alone, on the same
 * bytes, agrees with the format on whether the pickle is cut, broken or
 * holds objects. */
#include "config.h"

#include "tests/fuzz/fuzz_common.h"

#include "model/decode/pickle.h"
#include "model/input_format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

extern const struct input_format torch_snapshot_format;

static void fuzz_check_decoder(const uint8_t *data, size_t size, enum load_status status)
{
    struct pickle_document *document = NULL;
    struct pickle_error error = {0};
    enum pickle_status decoded = pickle_decode(data, size, NULL, &document, &error);
    if (decoded == PICKLE_OK) {
        pickle_document_free(document);
        return;
    }
    fuzz_require(document == NULL, "a failed decode hands back nothing");
    fuzz_require(error.offset <= size, "the offset of a decode error is inside the file");
    /* Without a consumer nothing is taken, so a pickle the format took
     * whole is one the decoder reads too. */
    fuzz_require(status != LOAD_OK || decoded == PICKLE_NO_MEMORY,
                 "what the format reads, the decoder reads");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct profile *profile;
    enum load_status status;
    struct load_error error = {0};
    if (!fuzz_read_with(&torch_snapshot_format, "fuzz.pickle", data, size, &profile, &status,
                        &error))
        return 0;
    if (profile && profile->allocator_count > 0)
        fuzz_check_outcome(LOAD_OK, profile, &error);
    else
        profile_free(profile);
    fuzz_check_decoder(data, size, status);
    fuzz_check_whole_path(data, size, "fuzz.pickle");
    return 0;
}
