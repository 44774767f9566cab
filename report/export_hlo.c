/* export_hlo: the hlo view as CSV (see export.h): each HLO module the
 * profile records: its id, name, plane, start, end and duration. Called by
 * export.c's export_write(); writes only through csv_writer. */
#include "config.h"

#include "report/csv_writer.h"
#include "report/export.h"

static const char *const hlo_columns[] = {
    "id", "name", "plane_name", "start_time_ps", "end_time_ps", "duration_ps",
};

static void write_module(struct csv_writer *writer, const struct profile *profile,
                         const struct hlo_module *module)
{
    csv_writer_int(writer, module->id);
    csv_writer_bytes(writer, profile_string(profile, module->name));
    csv_writer_bytes(writer, profile_string(profile, module->plane_name));
    csv_writer_int(writer, module->start_time_ps);
    csv_writer_int(writer, module->end_time_ps);
    /* A file's times are not trusted: a difference past int64 is left
     * empty rather than wrapped into a wrong number. */
    int64_t duration;
    if (__builtin_sub_overflow(module->end_time_ps, module->start_time_ps, &duration))
        csv_writer_empty(writer);
    else
        csv_writer_int(writer, duration);
    csv_writer_end_record(writer);
}

size_t export_hlo(struct csv_writer *writer, const struct export_request *request)
{
    const struct profile *profile = request->profile;
    csv_writer_record(writer, hlo_columns, sizeof hlo_columns / sizeof *hlo_columns);
    size_t written = 0;
    for (size_t i = 0; i < profile->hlo_module_count && !writer->error; i++, written++)
        write_module(writer, profile, &profile->hlo_modules[i]);
    return written;
}
