/* export_each: several hosts' exports in one CSV (report/export.h). */
#include "config.h"

#include "report/export.h"

#include <string.h>

#include "report/atomic_file.h"

enum export_status export_each_write(FILE *out, const struct export_each *each, size_t *rows,
                                     char *error, size_t error_size)
{
    enum export_status status = EXPORT_OK;
    bool written = false;
    if (rows)
        *rows = 0;
    for (size_t i = 0; i < each->count && status == EXPORT_OK; i++) {
        struct export_request request;
        if (!each->next(each->context, i, &request))
            continue;
        request.no_header = written;
        size_t host_rows = 0;
        status = export_write(out, &request, &host_rows, error, error_size);
        written = true;
        if (rows)
            *rows += host_rows;
        each->done(each->context, i);
    }
    if (status == EXPORT_OK && !written) {
        snprintf(error, error_size, "no host to export");
        status = EXPORT_FAILED;
    }
    return status;
}

struct file_export_each {
    const struct export_each *each;
    size_t rows;
};

/* An atomic_file_write_fn: the hosts' CSV. */
static bool file_export_each(FILE *out, void *context, char *error, size_t error_size)
{
    struct file_export_each *export = context;
    return export_each_write(out, export->each, &export->rows, error, error_size) == EXPORT_OK;
}

enum export_status export_each_to_path(const char *path, bool replace,
                                       const struct export_each *each, size_t *rows,
                                       char *error, size_t error_size)
{
    struct file_export_each export = {each, 0};
    if (rows)
        *rows = 0;
    switch (atomic_file_write(path, replace, file_export_each, &export, error, error_size)) {
    case ATOMIC_FILE_OK:
        if (rows)
            *rows = export.rows;
        return EXPORT_OK;
    case ATOMIC_FILE_EXISTS: return EXPORT_EXISTS;
    default: return EXPORT_FAILED;
    }
}
