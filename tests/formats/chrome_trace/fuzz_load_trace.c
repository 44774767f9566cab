/* fuzz_load_trace: the Chrome-trace importer on any bytes, through its
 * format row (whatever the probe would say) and through
 * profile_load_bytes(); see fuzz_common.h for what is checked. One more
 * promise: a trace that loads, exported as a Chrome trace
 * (report/export_chrome_trace.c), loads back with the same allocators,
 * timelines and peaks. */
#include "config.h"

#include "tests/fuzz/fuzz_common.h"

#include "model/input_format.h"
#include "report/export.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

extern const struct input_format chrome_trace_format;

/* The export of `profile`, read back: the same allocators, timeline
 * lengths and peaks. */
static void fuzz_check_round_trip(const struct profile *profile)
{
    char *text = NULL;
    size_t length = 0;
    FILE *out = open_memstream(&text, &length);
    if (!out)
        return;
    struct export_request request;
    export_request_init(&request, EXPORT_VIEW_CHROME_TRACE, profile, NULL);
    char error[EXPORT_ERROR_SIZE];
    enum export_status status = export_write(out, &request, NULL, error, sizeof error);
    fclose(out);
    fuzz_require(status == EXPORT_OK, "the chrome-trace export of a loaded trace is written");
    struct profile *again = NULL;
    struct load_error load_error = {0};
    enum load_status loaded =
        profile_load_bytes((const uint8_t *)text, length, "export.json", NULL, &again,
                           &load_error);
    if (loaded != LOAD_OK)
        fuzz_fail("memtop reads its own export back", load_error.message);
    fuzz_require(again->allocator_count == profile->allocator_count,
                 "the export keeps every allocator");
    for (size_t a = 0; a < profile->allocator_count; a++) {
        const struct allocator *before = &profile->allocators[a], *after = &again->allocators[a];
        fuzz_require(after->timeline.count == before->timeline.count &&
                         after->row_count == before->row_count,
                     "the export keeps every snapshot and row");
        fuzz_require(after->summary.peak_bytes == before->summary.peak_bytes &&
                         after->summary.peak_time_ps == before->summary.peak_time_ps,
                     "the export keeps the peak");
        for (size_t i = 0; i < before->timeline.count; i++)
            fuzz_require(snapshot_columns_time(&after->timeline, i) ==
                                 snapshot_columns_time(&before->timeline, i) &&
                             after->timeline.heap_bytes[i] == before->timeline.heap_bytes[i],
                         "the export keeps every time and heap");
    }
    profile_free(again);
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct profile *profile;
    enum load_status status;
    struct load_error error = {0};
    if (!fuzz_read_with(&chrome_trace_format, "fuzz.json", data, size, &profile, &status,
                        &error))
        return 0;
    if (profile && profile->allocator_count > 0 && size <= 65536)
        fuzz_check_round_trip(profile);
    if (profile && profile->allocator_count > 0)
        fuzz_check_outcome(LOAD_OK, profile, &error);
    else
        profile_free(profile);

    fuzz_check_whole_path(data, size, "fuzz.json");
    return 0;
}
