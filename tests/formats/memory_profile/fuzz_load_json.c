/* fuzz_load_json: the proto3 JSON loader on any bytes, alone and through
 * profile_load_bytes(); see fuzz_common.h for what is checked. */
#include "config.h"

#include "tests/fuzz/fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_draft target;
    if (!fuzz_draft_start(&target, "fuzz.json", PROFILE_FORMAT_JSON))
        return 0;
    struct load_error error = {0};
    enum load_status status = load_json(data, size, &target.draft, &error);
    fuzz_finish_and_check(status, &target, &error);

    fuzz_check_whole_path(data, size, "fuzz.json");
    return 0;
}
