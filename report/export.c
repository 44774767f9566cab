#include "config.h"

#include "report/export.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/atomic_file.h"
#include "report/csv_writer.h"
#include "report/json_writer.h"
#include "model/segments.h"

/* ---- writing to a stream ---- */

void export_request_init(struct export_request *request, enum export_view view,
                         const struct profile *profile, const struct allocator *allocator)
{
    *request = (struct export_request){
        .view = view,
        .profile = profile,
        .allocator = allocator,
        .from_ps = INT64_MIN,
        .to_ps = INT64_MAX,
        .group_by = ROW_GROUP_NONE,
        .group_scope = {"", 0},
    };
}

/* A one-line reason in error: a text, or an errno's text. */
static enum export_status export_fail(char *error, size_t error_size, const char *reason,
                                      int error_number)
{
    snprintf(error, error_size, "%s", error_number ? strerror(error_number) : reason);
    return EXPORT_FAILED;
}

/* A request with what its view needs; the allocator taken from the table
 * when only the table was given. */
static bool request_check(const struct export_request *request, struct export_request *checked,
                          const char **reason)
{
    *checked = *request;
    if ((unsigned)request->view >= EXPORT_VIEW_COUNT) {
        *reason = "unknown export view";
        return false;
    }
    if (!request->profile) {
        *reason = "no profile to export";
        return false;
    }
    if (request->view == EXPORT_VIEW_ALLOCATIONS && request->table) {
        if (!checked->allocator)
            checked->allocator = request->table->allocator;
        if (request->table->allocator != checked->allocator) {
            *reason = "the table shows another allocator";
            return false;
        }
    }
    if ((request->view == EXPORT_VIEW_ALLOCATIONS || request->view == EXPORT_VIEW_TIMELINE ||
         request->view == EXPORT_VIEW_STEPS || request->view == EXPORT_VIEW_SEGMENTS ||
         request->view == EXPORT_VIEW_SPANS ||
         request->view == EXPORT_VIEW_XPROF_TABLE) &&
        !checked->allocator) {
        *reason = "the profile has no allocator to export";
        return false;
    }
    if (request->view == EXPORT_VIEW_SEGMENTS && !allocator_has_segments(checked->allocator)) {
        *reason = "the allocator records no segments (only PyTorch memory snapshots do)";
        return false;
    }
    if (request->view == EXPORT_VIEW_COMPARE && !request->new_profile) {
        *reason = "no second profile to compare with";
        return false;
    }
    if (request->view == EXPORT_VIEW_COMPARE && !request->allocator && !request->new_allocator) {
        *reason = "no allocator to compare";
        return false;
    }
    return true;
}

/* The views: CSV ones write through csv_writer, the others JSON. */
static const struct {
    size_t (*csv)(struct csv_writer *, const struct export_request *);
    size_t (*json)(struct json_writer *, const struct export_request *);
} exporters[EXPORT_VIEW_COUNT] = {
    [EXPORT_VIEW_ALLOCATIONS] = {export_allocations, NULL},
    [EXPORT_VIEW_TIMELINE] = {export_timeline, NULL},
    [EXPORT_VIEW_SUMMARY] = {export_summary, NULL},
    [EXPORT_VIEW_HLO] = {export_hlo, NULL},
    [EXPORT_VIEW_CHROME_TRACE] = {NULL, export_chrome_trace},
    [EXPORT_VIEW_COMPARE] = {export_compare, NULL},
    [EXPORT_VIEW_STEPS] = {export_steps, NULL},
    [EXPORT_VIEW_SEGMENTS] = {export_segments, NULL},
    [EXPORT_VIEW_XPROF_TABLE] = {export_xprof_table, NULL},
    [EXPORT_VIEW_SPANS] = {export_spans, NULL},
};

/* A JSON view: json_writer keeps every string valid and terminal-safe. */
static int export_write_json(FILE *out, const struct export_request *request, size_t *written)
{
    struct json_writer writer;
    json_writer_init(&writer, out);
    *written = exporters[request->view].json(&writer, request);
    if (!writer.error)
        fputc('\n', out);
    return json_writer_finish(&writer);
}

enum export_status export_write(FILE *out, const struct export_request *request, size_t *rows,
                                char *error, size_t error_size)
{
    if (rows)
        *rows = 0;
    struct export_request checked;
    const char *reason;
    if (!request_check(request, &checked, &reason))
        return export_fail(error, error_size, reason, 0);
    size_t written;
    int error_number;
    if (exporters[checked.view].json) {
        error_number = export_write_json(out, &checked, &written);
    } else {
        struct csv_writer writer;
        csv_writer_init(&writer, out);
        /* Bytes for a program stay the profile's; a terminal gets them safe. */
        csv_writer_escape_controls(&writer, isatty(fileno(out)) == 1);
        csv_writer_lead(&writer, checked.lead_names, checked.lead_values, checked.lead_count,
                        checked.no_header);
        written = exporters[checked.view].csv(&writer, &checked);
        error_number = csv_writer_finish(&writer);
    }
    if (error_number)
        return export_fail(error, error_size, "", error_number);
    if (rows)
        *rows = written;
    return EXPORT_OK;
}

/* ---- several hosts in one CSV ---- */

static enum export_status export_each_stream(FILE *out, const struct export_each *each,
                                             size_t *rows, char *error, size_t error_size)
{
    enum export_status status = EXPORT_OK;
    bool written = false;
    if (rows)
        *rows = 0;
    for (size_t i = 0; i < each->count && status == EXPORT_OK; i++) {
        struct export_request request;
        if (!each->next(each->context, i, &request)) {
            /* Rows without this host's would pass for the whole run. */
            snprintf(error, error_size, "not written: host %s failed",
                     each->name(each->context, i));
            return EXPORT_FAILED;
        }
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

/* Copies what `kept` holds (from its start) to out: 0, or an errno. */
static int export_copy(FILE *kept, FILE *out)
{
    errno = 0;
    if (fflush(kept) != 0 || fseek(kept, 0, SEEK_SET) != 0)
        return errno ? errno : EIO;
    char buffer[1 << 16];
    size_t length;
    while ((length = fread(buffer, 1, sizeof buffer, kept)) > 0)
        if (fwrite(buffer, 1, length, out) != length)
            return errno ? errno : EIO;
    if (ferror(kept))
        return EIO;
    return fflush(out) == 0 ? 0 : (errno ? errno : EIO);
}

/* All or nothing: the hosts' CSV is kept in a temporary file until every
 * host is in, then copied to out, so a host that fails leaves out with
 * nothing (a pipe, a FIFO or standard output included; a file -o names
 * is written atomically besides). Streamed straight to a terminal, where
 * the rows' control bytes are escaped and there is nothing to keep, and
 * when no temporary file can be made. */
enum export_status export_each_write(FILE *out, const struct export_each *each, size_t *rows,
                                     char *error, size_t error_size)
{
    FILE *kept = isatty(fileno(out)) == 1 ? NULL : tmpfile();
    if (!kept)
        return export_each_stream(out, each, rows, error, error_size);
    enum export_status status = export_each_stream(kept, each, rows, error, error_size);
    int error_number = status == EXPORT_OK ? export_copy(kept, out) : 0;
    fclose(kept);
    if (error_number) {
        if (rows)
            *rows = 0;
        return export_fail(error, error_size, "", error_number);
    }
    return status;
}

void export_known_int(struct csv_writer *writer, bool unknown, int64_t value)
{
    if (unknown)
        csv_writer_empty(writer);
    else
        csv_writer_int(writer, value);
}

void export_known_double(struct csv_writer *writer, bool unknown, double value)
{
    if (unknown)
        csv_writer_empty(writer);
    else
        csv_writer_double(writer, value);
}

/* ---- writing a file ---- */

/* What a file export writes: one request, or several hosts'. */
struct file_export {
    const struct export_request *request;
    const struct export_each *each;
    size_t rows;
};

/* An atomic_file_write_fn: the CSV of the request, or of the hosts. */
static bool file_export_write(FILE *out, void *context, char *error, size_t error_size)
{
    struct file_export *export = context;
    enum export_status status =
        export->each ? export_each_write(out, export->each, &export->rows, error, error_size)
                     : export_write(out, export->request, &export->rows, error, error_size);
    return status == EXPORT_OK;
}

static enum export_status file_export_to_path(const char *path, bool replace,
                                              struct file_export *export, size_t *rows,
                                              char *error, size_t error_size)
{
    if (rows)
        *rows = 0;
    switch (atomic_file_write(path, replace, file_export_write, export, error, error_size)) {
    case ATOMIC_FILE_OK:
        if (rows)
            *rows = export->rows;
        return EXPORT_OK;
    case ATOMIC_FILE_EXISTS: return EXPORT_EXISTS;
    default: return EXPORT_FAILED;
    }
}

enum export_status export_to_path(const char *path, bool replace,
                                  const struct export_request *request, size_t *rows,
                                  char *error, size_t error_size)
{
    struct file_export export = {request, NULL, 0};
    return file_export_to_path(path, replace, &export, rows, error, error_size);
}

enum export_status export_each_to_path(const char *path, bool replace,
                                       const struct export_each *each, size_t *rows,
                                       char *error, size_t error_size)
{
    struct file_export export = {NULL, each, 0};
    return file_export_to_path(path, replace, &export, rows, error, error_size);
}
