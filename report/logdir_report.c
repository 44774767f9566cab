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

/* "  BlueDiamond.local: xplane, memory_profile; trace  4.00 MiB  (opens
 * FILE)": one line a host, the size of the file memtop opens (the
 * run's tools are said once, above its hosts). */
static void text_host(FILE *out, const struct run_host *host)
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
        struct stat file_status;
        char size[32];
        if (stat(source->path, &file_status) == 0)
            fprintf(out, "  %s", format_bytes(file_status.st_size, size, sizeof size));
        fputs(source->format ? "  (opens " : "  (not read by this memtop: ", out);
        text_safe(out, source->name);
        fputs(")", out);
    }
    fputc('\n', out);
}

static void text_run(FILE *out, const struct logdir_run *run, const char *load_error)
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
    for (size_t i = 0; i < run->host_count; i++)
        text_host(out, &run->hosts[i]);
}

void logdir_report_text(FILE *out, const struct logdir *logdir, char *const *run_errors)
{
    text_safe(out, logdir->path);
    fprintf(out, ": %zu run%s%s\n", logdir->run_count, logdir->run_count == 1 ? "" : "s",
            logdir->run_count > 1 ? ", newest first" : "");
    for (size_t i = 0; i < logdir->run_count; i++) {
        fputc('\n', out);
        text_run(out, &logdir->runs[i], run_errors ? run_errors[i] : NULL);
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
                      const struct run_host *host)
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
    json_run_tools(writer, run, host);
    json_writer_key(writer, "files");
    json_writer_array_begin(writer);
    for (size_t i = 0; i < host->file_count; i++)
        json_file(writer, &host->files[i], i < host->source_count);
    json_writer_array_end(writer);
    json_writer_object_end(writer);
}

static void json_run(struct json_writer *writer, const struct logdir_run *run,
                     const char *load_error)
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
        json_host(writer, run, &run->hosts[i]);
    json_writer_array_end(writer);
    json_writer_object_end(writer);
}

int logdir_report_json(FILE *out, const struct logdir *logdir, char *const *run_errors)
{
    struct json_writer writer;
    json_writer_init(&writer, out);
    json_writer_object_begin(&writer);
    json_writer_member_string(&writer, "log_directory", logdir->path);
    json_writer_key(&writer, "runs");
    json_writer_array_begin(&writer);
    for (size_t i = 0; i < logdir->run_count; i++)
        json_run(&writer, &logdir->runs[i], run_errors ? run_errors[i] : NULL);
    json_writer_array_end(&writer);
    json_writer_object_end(&writer);
    fputc('\n', out);
    return json_writer_finish(&writer);
}
