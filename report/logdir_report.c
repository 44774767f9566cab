#include "config.h"

#include "report/logdir_report.h"

#include <string.h>
#include <sys/stat.h>

#include "model/format.h"
#include "report/json_writer.h"

/* Tools one list holds at most: XProf has fewer than twenty. */
#define TOOLS_MAX 64

/* ---- text ---- */

static void text_safe(FILE *out, const char *text)
{
    char safe[2048];
    format_safe_text(text, false, safe, sizeof safe);
    fputs(safe, out);
}

static void text_tools(FILE *out, const struct logdir_run *run, const struct run_host *host)
{
    const char *tools[TOOLS_MAX];
    size_t count = logdir_tools(run, host, tools, TOOLS_MAX);
    for (size_t i = 0; i < count; i++)
        fprintf(out, "%s%s", i ? ", " : "", tools[i]);
    if (count == 0)
        fputs("none", out);
}

/* "  7.86 GiB  53%" (" 7.86 GiB     -" without a capacity), or why the
 * host did not load; nothing for a host not read. */
static void text_peak(FILE *out, const struct logdir_host_peak *peak)
{
    char bytes[FORMAT_BYTES_SIZE];
    if (!peak || !peak->read)
        return;
    if (!peak->loaded) {
        fputs("  \xe2\x9c\x97 ", out);
        text_safe(out, peak->error ? peak->error : "did not load");
        return;
    }
    fprintf(out, "  peak %s", format_bytes(peak->peak_bytes, bytes, sizeof bytes));
    if (peak->capacity_bytes > 0)
        fprintf(out, "  %.0f%%", 100.0 * (double)peak->peak_bytes / (double)peak->capacity_bytes);
}

/* The size of the file memtop opens for a host, "" when none. */
static const char *source_size(const struct run_host *host, char *buffer, size_t size)
{
    const struct run_file *source = run_host_source(host);
    struct stat file_status;
    buffer[0] = '\0';
    if (source && stat(source->path, &file_status) == 0)
        format_bytes(file_status.st_size, buffer, size);
    return buffer;
}

/* "  BlueDiamond.local: xplane, memory_profile; trace  4.00 MiB  (opens
 * FILE)": one line a host, the size of the file memtop opens (the
 * run's tools are said once, above its hosts). */
static void text_host(FILE *out, const struct run_host *host, const struct logdir_host_peak *peak)
{
    fputs("  ", out);
    text_safe(out, host->name);
    fputs(":", out);
    for (size_t i = 0; i < host->file_count; i++) {
        const struct run_file *file = &host->files[i];
        fprintf(out, "%s%s", i == host->source_count && i ? ";" : i ? "," : "", " ");
        fputs(file->kind ? file->kind->short_name : profile_format_name(file->format), out);
    }
    const struct run_file *source = run_host_source(host);
    if (source) {
        char size[FORMAT_BYTES_SIZE];
        if (source_size(host, size, sizeof size)[0])
            fprintf(out, "  %s", size);
        fputs(source->format ? "  (opens " : "  (not read by this memtop: ", out);
        text_safe(out, source->name);
        fputs(")", out);
    }
    text_peak(out, peak);
    fputc('\n', out);
}

/* A pod: one row a host under a heading, the file kinds said once. */
static void text_host_table(FILE *out, const struct logdir_run *run,
                            const struct logdir_host_peak *peaks)
{
    size_t width = 4;
    for (size_t i = 0; i < run->host_count; i++) {
        size_t length = strlen(run->hosts[i].name);
        width = length > width ? length : width;
    }
    width = width > 60 ? 60 : width;
    fprintf(out, "  %-*s  %10s%s\n", (int)width, "host", "file",
            peaks ? "        peak  % cap" : "");
    for (size_t i = 0; i < run->host_count; i++) {
        const struct run_host *host = &run->hosts[i];
        char safe[256], size[FORMAT_BYTES_SIZE], bytes[FORMAT_BYTES_SIZE];
        format_safe_text(host->name, false, safe, sizeof safe);
        fprintf(out, "  %-*s  %10s", (int)width, safe, source_size(host, size, sizeof size));
        const struct logdir_host_peak *peak = peaks ? &peaks[i] : NULL;
        if (peak && peak->loaded && peak->capacity_bytes > 0)
            fprintf(out, "  %10s  %4.0f%%", format_bytes(peak->peak_bytes, bytes, sizeof bytes),
                    100.0 * (double)peak->peak_bytes / (double)peak->capacity_bytes);
        else if (peak && peak->loaded)
            fprintf(out, "  %10s      -", format_bytes(peak->peak_bytes, bytes, sizeof bytes));
        else
            text_peak(out, peak);
        fputc('\n', out);
    }
}

static void text_run(FILE *out, const struct logdir_run *run, const char *load_error,
                     const struct logdir_host_peak *peaks)
{
    char date[32];
    text_safe(out, run->name);
    if (logdir_run_date(run, date, sizeof date))
        fprintf(out, "  %s", date);
    size_t hosts = logdir_run_memory_hosts(run);
    fprintf(out, "  %zu host%s with memory profiles", hosts, hosts == 1 ? "" : "s");
    if (run->read_error)
        fprintf(out, "  (cannot read it: %s)", strerror(run->read_error));
    if (load_error) {
        fputs("\n  \xe2\x9c\x97 did not load: ", out);
        text_safe(out, load_error);
    }
    fputs("\n  tools: ", out);
    text_tools(out, run, NULL);
    fputc('\n', out);
    if (run->host_count > LOGDIR_REPORT_TABLE_HOSTS) {
        text_host_table(out, run, peaks);
        return;
    }
    for (size_t i = 0; i < run->host_count; i++)
        text_host(out, &run->hosts[i], peaks ? &peaks[i] : NULL);
}

void logdir_report_text(FILE *out, const struct logdir *logdir, char *const *run_errors,
                        const struct logdir_peaks *peaks)
{
    text_safe(out, logdir->path);
    fprintf(out, ": %zu run%s%s\n", logdir->run_count, logdir->run_count == 1 ? "" : "s",
            logdir->run_count > 1 ? ", newest first" : "");
    size_t first_host = 0;
    for (size_t i = 0; i < logdir->run_count; i++) {
        fputc('\n', out);
        text_run(out, &logdir->runs[i], run_errors ? run_errors[i] : NULL,
                 peaks ? peaks->hosts + first_host : NULL);
        first_host += logdir->runs[i].host_count;
    }
}

void logdir_report_run_heading(FILE *out, const char *run)
{
    fputs("run ", out);
    text_safe(out, run);
    fputs("\n\n", out);
}

/* ---- JSON ---- */

static void json_tools(struct json_writer *writer, const char *const *tools, size_t count)
{
    json_writer_key(writer, "tools");
    json_writer_array_begin(writer);
    for (size_t i = 0; i < count; i++)
        json_writer_string(writer, tools[i]);
    json_writer_array_end(writer);
}

static void json_run_tools(struct json_writer *writer, const struct logdir_run *run,
                           const struct run_host *host)
{
    const char *tools[TOOLS_MAX];
    json_tools(writer, tools, logdir_tools(run, host, tools, TOOLS_MAX));
}

static void json_file(struct json_writer *writer, const struct run_file *file, bool memory)
{
    json_writer_object_begin(writer);
    json_writer_member_string(writer, "file", file->path);
    json_writer_key(writer, "suffix");
    if (file->kind)
        json_writer_string(writer, file->kind->suffix);
    else
        json_writer_null(writer);
    json_writer_key(writer, "format");
    if (file->format)
        json_writer_string(writer, profile_format_name(file->format));
    else
        json_writer_null(writer);
    json_writer_member_bool(writer, "memory", memory);
    size_t count = 0;
    while (file->kind && file->kind->tools && file->kind->tools[count])
        count++;
    json_tools(writer, file->kind ? file->kind->tools : NULL, count);
    json_writer_object_end(writer);
}

static void json_host(struct json_writer *writer, const struct logdir_run *run,
                      const struct run_host *host, const struct logdir_host_peak *peak)
{
    json_writer_object_begin(writer);
    json_writer_member_string(writer, "host", host->name);
    const struct run_file *source = run_host_source(host);
    json_writer_key(writer, "file");
    if (source)
        json_writer_string(writer, source->path);
    else
        json_writer_null(writer);
    json_writer_member_bool(writer, "readable", source && source->format);
    if (peak && peak->loaded) {
        json_writer_member_int(writer, "peak_bytes", peak->peak_bytes);
        json_writer_member_int(writer, "capacity_bytes", peak->capacity_bytes);
    } else if (peak && peak->read) {
        json_writer_member_string(writer, "load_error", peak->error ? peak->error : "");
    }
    json_run_tools(writer, run, host);
    json_writer_key(writer, "files");
    json_writer_array_begin(writer);
    for (size_t i = 0; i < host->file_count; i++)
        json_file(writer, &host->files[i], i < host->source_count);
    json_writer_array_end(writer);
    json_writer_object_end(writer);
}

static void json_run(struct json_writer *writer, const struct logdir_run *run,
                     const char *load_error, const struct logdir_host_peak *peaks)
{
    char date[32];
    json_writer_object_begin(writer);
    json_writer_member_string(writer, "run", run->name);
    json_writer_member_string(writer, "path", run->path);
    json_writer_key(writer, "date");
    if (logdir_run_date(run, date, sizeof date))
        json_writer_string(writer, date);
    else
        json_writer_null(writer);
    json_writer_member_int(writer, "modified", run->modified);
    if (run->read_error)
        json_writer_member_string(writer, "error", strerror(run->read_error));
    if (load_error)
        json_writer_member_string(writer, "load_error", load_error);
    json_run_tools(writer, run, NULL);
    json_writer_key(writer, "hosts");
    json_writer_array_begin(writer);
    for (size_t i = 0; i < run->host_count; i++)
        json_host(writer, run, &run->hosts[i], peaks ? &peaks[i] : NULL);
    json_writer_array_end(writer);
    json_writer_object_end(writer);
}

int logdir_report_json(FILE *out, const struct logdir *logdir, char *const *run_errors,
                       const struct logdir_peaks *peaks)
{
    struct json_writer writer;
    json_writer_init(&writer, out);
    json_writer_object_begin(&writer);
    json_writer_member_string(&writer, "log_directory", logdir->path);
    json_writer_key(&writer, "runs");
    json_writer_array_begin(&writer);
    size_t first_host = 0;
    for (size_t i = 0; i < logdir->run_count; i++) {
        json_run(&writer, &logdir->runs[i], run_errors ? run_errors[i] : NULL,
                 peaks ? peaks->hosts + first_host : NULL);
        first_host += logdir->runs[i].host_count;
    }
    json_writer_array_end(&writer);
    json_writer_object_end(&writer);
    fputc('\n', out);
    return json_writer_finish(&writer);
}
