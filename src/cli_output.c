#include "config.h"

#include "src/cli_output.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "model/format.h"
#include "model/message_text.h"
#include "src/progress.h"

int exit_status_for(enum load_status status)
{
    switch (status) {
    case LOAD_OK: return EXIT_OK;
    case LOAD_NO_MEMORY: return EXIT_RUNTIME_FAILURE;
    default: return EXIT_BAD_INPUT;
    }
}

/* Bad input outranks a runtime failure: it is what the user must fix. */
int exit_status_worst(int a, int b)
{
    if (a == EXIT_BAD_INPUT || b == EXIT_BAD_INPUT)
        return EXIT_BAD_INPUT;
    /* A failure outranks a crossed gate: the gate's answer may be wrong. */
    if (a == EXIT_RUNTIME_FAILURE || b == EXIT_RUNTIME_FAILURE)
        return EXIT_RUNTIME_FAILURE;
    return a > b ? a : b;
}

/* Every error line goes through here: "memtop: " and the line, made safe
 * for the terminal once, since file names and the messages that quote a
 * profile's text come from other machines. The line is raw: a profile's
 * text in it (NUL bytes and all) is escaped here, not before. */
void print_error_line(struct text line)
{
    char safe[4 * PRINT_LINE_SIZE + 1]; /* enough for any line (model/format.h) */
    if (line.length > PRINT_LINE_SIZE)
        line.length = PRINT_LINE_SIZE;
    format_safe_bytes(line, 0, safe, sizeof safe);
    fprintf(stderr, "memtop: %s\n", safe);
}

void print_error(const char *format, ...)
{
    char line[PRINT_LINE_SIZE];
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(line, sizeof line, format, arguments);
    va_end(arguments);
    print_error_line(text_of(line));
}

/* The message raw (a loader keeps the file's text in it as the file had
 * it), escaped once with the rest. */
void print_file_message(const char *path, const char *kind, struct text message)
{
    char buffer[PRINT_LINE_SIZE];
    struct message_text line;
    message_text_start(&line, buffer, sizeof buffer);
    message_text_append_text(&line, path);
    message_text_append_text(&line, ": ");
    message_text_append_text(&line, kind);
    message_text_append_bytes(&line, message);
    print_error_line(message_text_get(&line));
}

void print_load_error(const char *path, const struct load_error *error)
{
    print_file_message(path, "", load_error_message(error));
}

void append_allocator_ids(struct message_text *line, const struct profile *profile)
{
    if (profile->allocator_count == 0)
        message_text_append_text(line, "(none)");
    for (size_t i = 0; i < profile->allocator_count; i++) {
        if (i > 0)
            message_text_append_text(line, ", ");
        message_text_append_bytes(line, profile_string(profile, profile->allocators[i].id));
    }
}

/* What the loader found odd but read, escaped as errors are:
 * "memtop: FILE: warning: ...". The exit status stays what the load gave. */
void print_load_warnings(const char *path, const struct profile *profile)
{
    for (size_t i = 0; i < profile->warning_count; i++)
        print_file_message(path, "warning: ", profile_string(profile, profile->warnings[i]));
}

/* Loads host `index` with a progress bar on stderr (when it is a
 * terminal and the load is slow). */
const struct profile *load_host(struct host_list *hosts, size_t index)
{
    struct progress_bar bar;
    progress_bar_start(&bar, stderr, hosts->hosts[index].name);
    struct load_options options = {.progress = progress_bar_update, .progress_context = &bar};
    const struct profile *profile = host_list_load(hosts, index, &options);
    progress_bar_finish(&bar);
    return profile;
}

/* Whether everything written to stdout reached it: 0, else the errno of
 * the failure (EIO when the stream kept none). */
static int stdout_error(void)
{
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout))
        return 0;
    return errno ? errno : EIO;
}

/* The end of a batch mode that wrote to stdout: "memtop: standard
 * output: No space left on device" and status 1 when the output did not
 * all get there (error_number, or what the final flush finds). */
int stdout_finish(int status, int error_number)
{
    if (!error_number)
        error_number = stdout_error();
    if (!error_number)
        return status;
    print_error("standard output: %s", strerror(error_number));
    return exit_status_worst(status, EXIT_RUNTIME_FAILURE);
}

/* Where --export writes: the request's CSV, or (each) several hosts'. */
int export_output(const struct export_request *request, const struct export_each *each,
                  const struct export_options *export)
{
    char error[EXPORT_ERROR_SIZE];
    bool to_stdout = !export->output || strcmp(export->output, "-") == 0;
    enum export_status status;
    if (each)
        status = to_stdout ? export_each_write(stdout, each, NULL, error, sizeof error)
                           : export_each_to_path(export->output, export->force, each, NULL,
                                                 error, sizeof error);
    else
        status = to_stdout ? export_write(stdout, request, NULL, error, sizeof error)
                           : export_to_path(export->output, export->force, request, NULL, error,
                                            sizeof error);
    if (status == EXPORT_OK)
        return EXIT_OK;
    if (status == EXPORT_EXISTS)
        print_error("%s: already exists; --force replaces it", export->output);
    else
        print_error("%s: %s", to_stdout ? "standard output" : export->output, error);
    return EXIT_RUNTIME_FAILURE;
}
