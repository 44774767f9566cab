#include "config.h"

#include "report/export.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/csv_writer.h"

/* ---- names ---- */

static const char *const view_names[EXPORT_VIEW_COUNT] = {
    [EXPORT_VIEW_ALLOCATIONS] = "allocations",
    [EXPORT_VIEW_TIMELINE] = "timeline",
    [EXPORT_VIEW_SUMMARY] = "summary",
    [EXPORT_VIEW_HLO] = "hlo",
};

const char *export_view_name(enum export_view view)
{
    return (unsigned)view < EXPORT_VIEW_COUNT ? view_names[view] : "unknown";
}

bool export_view_parse(const char *name, enum export_view *out)
{
    for (int view = 0; view < EXPORT_VIEW_COUNT; view++) {
        if (strcmp(name, view_names[view]) == 0) {
            *out = (enum export_view)view;
            return true;
        }
    }
    return false;
}

const char *export_view_list(void)
{
    return "allocations, timeline, summary, hlo";
}

/* The sortable columns are named as in the allocations header (the
 * column table's csv_name; its `name` is for people). */
bool export_sort_parse(const char *text, enum table_column *column, bool *descending)
{
    const char *colon = strchr(text, ':');
    size_t name_length = colon ? (size_t)(colon - text) : strlen(text);
    enum table_column found;
    if (!allocation_column_find(text, name_length, &found) || found == TABLE_COLUMN_FILE_ORDER ||
        !allocation_column_sortable(found))
        return false;
    if (!colon) /* the direction the viewer's table sorts in first */
        *descending = allocation_table_default_descending(found);
    else if (strcmp(colon + 1, "asc") == 0)
        *descending = false;
    else if (strcmp(colon + 1, "desc") == 0)
        *descending = true;
    else
        return false;
    *column = found;
    return true;
}

const char *export_sort_list(void)
{
    static char list[512];
    if (list[0])
        return list;
    size_t used = 0;
    const struct allocation_column_info *columns = allocation_columns();
    for (size_t i = 0; i < ALLOCATION_COLUMN_COUNT && used < sizeof list; i++)
        if (columns[i].compare)
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "",
                                     columns[i].csv_name);
    return list;
}

/* ---- milliseconds ---- */

#define PICOSECONDS_PER_MILLISECOND 1000000000u
#define MILLISECOND_DIGITS 9

/* magnitude * 10 + digit, false past limit. */
static bool accumulate_digit(uint64_t *magnitude, unsigned digit, uint64_t limit)
{
    if (*magnitude > (limit - digit) / 10)
        return false;
    *magnitude = *magnitude * 10 + digit;
    return true;
}

bool export_milliseconds_parse(const char *text, int64_t *time_ps)
{
    bool negative = *text == '-';
    if (*text == '-' || *text == '+')
        text++;
    /* 2^63 is allowed for a negative value: INT64_MIN ps. */
    uint64_t limit = negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    uint64_t magnitude = 0;
    size_t digits = 0;
    for (; *text >= '0' && *text <= '9'; text++, digits++)
        if (!accumulate_digit(&magnitude, (unsigned)(*text - '0'), limit))
            return false;
    /* Whole milliseconds, then nine places of picoseconds. */
    unsigned places = 0;
    if (*text == '.') {
        for (text++; *text >= '0' && *text <= '9'; text++, digits++) {
            if (places == MILLISECOND_DIGITS) {
                if (*text != '0')
                    return false; /* finer than a picosecond */
                continue;
            }
            if (!accumulate_digit(&magnitude, (unsigned)(*text - '0'), limit))
                return false;
            places++;
        }
    }
    if (*text != '\0' || digits == 0)
        return false;
    for (; places < MILLISECOND_DIGITS; places++)
        if (!accumulate_digit(&magnitude, 0, limit))
            return false;
    *time_ps = negative ? (int64_t)(0 - magnitude) : (int64_t)magnitude;
    return true;
}

/* ---- default file name ---- */

#define DEFAULT_PATH_ID_MAX 100

static bool is_filename_safe(unsigned char byte)
{
    return (byte >= 'a' && byte <= 'z') || (byte >= 'A' && byte <= 'Z') ||
           (byte >= '0' && byte <= '9') || byte == '.' || byte == '_' || byte == '-';
}

char *export_default_path(const struct profile *profile, const struct allocator *allocator,
                          enum export_view view)
{
    char id[DEFAULT_PATH_ID_MAX + 1] = "";
    if (allocator) {
        const char *text = profile_text(profile, allocator->id);
        size_t length = strnlen(text, DEFAULT_PATH_ID_MAX);
        for (size_t i = 0; i < length; i++)
            id[i] = is_filename_safe((unsigned char)text[i]) ? text[i] : '_';
        id[length] = '\0';
        if (length == 0)
            strcpy(id, "_");
    }
    size_t size = sizeof "memtop--.csv" + strlen(id) + strlen(export_view_name(view));
    char *path = malloc(size);
    if (!path)
        return NULL;
    if (allocator)
        snprintf(path, size, "memtop-%s-%s.csv", id, export_view_name(view));
    else
        snprintf(path, size, "memtop-%s.csv", export_view_name(view));
    return path;
}

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
    };
}

static enum export_status export_fail(char *error, size_t error_size, const char *reason,
                                      int error_number)
{
    if (error_number)
        snprintf(error, error_size, "%s%s%s", reason, reason[0] ? ": " : "",
                 strerror(error_number));
    else
        snprintf(error, error_size, "%s", reason);
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
    if ((request->view == EXPORT_VIEW_ALLOCATIONS || request->view == EXPORT_VIEW_TIMELINE) &&
        !checked->allocator) {
        *reason = "the profile has no allocator to export";
        return false;
    }
    return true;
}

enum export_status export_write(FILE *out, const struct export_request *request, size_t *rows,
                                char *error, size_t error_size)
{
    static size_t (*const exporters[EXPORT_VIEW_COUNT])(struct csv_writer *,
                                                        const struct export_request *) = {
        [EXPORT_VIEW_ALLOCATIONS] = export_allocations,
        [EXPORT_VIEW_TIMELINE] = export_timeline,
        [EXPORT_VIEW_SUMMARY] = export_summary,
        [EXPORT_VIEW_HLO] = export_hlo,
    };
    if (rows)
        *rows = 0;
    struct export_request checked;
    const char *reason;
    if (!request_check(request, &checked, &reason))
        return export_fail(error, error_size, reason, 0);
    struct csv_writer writer;
    csv_writer_init(&writer, out);
    size_t written = exporters[checked.view](&writer, &checked);
    int error_number = csv_writer_finish(&writer);
    if (error_number)
        return export_fail(error, error_size, "", error_number);
    if (rows)
        *rows = written;
    return EXPORT_OK;
}

/* ---- writing a file atomically ---- */

/* Longest part of the target's name used in the temporary's, so that
 * ".NAME.XXXXXX" stays below NAME_MAX. */
#define TEMPORARY_NAME_MAX 200

struct path_parts {
    char *directory; /* "." for a bare name */
    char *temporary; /* directory/.NAME.XXXXXX, a mkstemp template */
};

static void path_parts_free(struct path_parts *parts)
{
    free(parts->directory);
    free(parts->temporary);
}

static bool path_parts_split(const char *path, struct path_parts *parts)
{
    *parts = (struct path_parts){0};
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    /* "name" lives in ".", "/name" in "/", "a/b/name" in "a/b". */
    const char *directory = slash ? path : ".";
    size_t directory_length = slash ? (size_t)(slash - path) : 1;
    size_t name_length = strnlen(name, TEMPORARY_NAME_MAX);
    size_t size = directory_length + name_length + sizeof "/..XXXXXX";
    parts->directory = malloc(directory_length + 2);
    parts->temporary = malloc(size);
    if (!parts->directory || !parts->temporary) {
        path_parts_free(parts);
        return false;
    }
    if (directory_length == 0)
        strcpy(parts->directory, "/");
    else
        snprintf(parts->directory, directory_length + 2, "%.*s", (int)directory_length,
                 directory);
    snprintf(parts->temporary, size, "%.*s/.%.*s.XXXXXX", (int)directory_length, directory,
             (int)name_length, name);
    return true;
}

static mode_t new_file_mode(void)
{
    mode_t mask = umask(0);
    umask(mask);
    return 0644 & ~mask;
}

/* The CSV into the open temporary, flushed to the disk; closes it. */
static enum export_status temporary_write(int fd, const struct export_request *request,
                                          size_t *rows, char *error, size_t error_size)
{
    if (fchmod(fd, new_file_mode()) != 0) {
        int saved = errno;
        close(fd);
        return export_fail(error, error_size, "cannot set the mode of the temporary file",
                           saved);
    }
    FILE *file = fdopen(fd, "w");
    if (!file) {
        int saved = errno;
        close(fd);
        return export_fail(error, error_size, "", saved);
    }
    enum export_status status = export_write(file, request, rows, error, error_size);
    /* fsync refuses only files that cannot be synced (EINVAL): nothing to
     * lose there. */
    if (status == EXPORT_OK && fsync(fd) != 0 && errno != EINVAL)
        status = export_fail(error, error_size, "", errno);
    if (fclose(file) != 0 && status == EXPORT_OK)
        status = export_fail(error, error_size, "", errno);
    return status;
}

/* The rename that makes the file appear, refusing to replace one that
 * appeared meanwhile when !replace. */
static enum export_status temporary_publish(const char *temporary, const char *path,
                                            bool replace, char *error, size_t error_size)
{
    if (!replace) {
#ifdef RENAME_NOREPLACE
        if (renameat2(AT_FDCWD, temporary, AT_FDCWD, path, RENAME_NOREPLACE) == 0)
            return EXPORT_OK;
        if (errno == EEXIST)
            return EXPORT_EXISTS;
        if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP)
            return export_fail(error, error_size, "cannot rename the temporary file", errno);
#endif
        /* No RENAME_NOREPLACE here: link(2) also refuses an existing name. */
        if (link(temporary, path) == 0) {
            unlink(temporary);
            return EXPORT_OK;
        }
        if (errno == EEXIST)
            return EXPORT_EXISTS;
        if (errno != EPERM && errno != ENOTSUP && errno != ENOSYS && errno != EMLINK)
            return export_fail(error, error_size, "cannot link the temporary file", errno);
        /* No hard links either (FAT, some network file systems). */
        struct stat status;
        if (lstat(path, &status) == 0)
            return EXPORT_EXISTS;
    }
    if (rename(temporary, path) != 0)
        return export_fail(error, error_size, "cannot rename the temporary file", errno);
    return EXPORT_OK;
}

/* Makes the rename itself durable; a directory that cannot be synced
 * still holds the complete file, so errors here are not failures. */
static void directory_sync(const char *directory)
{
    int fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

enum export_status export_to_path(const char *path, bool replace,
                                  const struct export_request *request, size_t *rows,
                                  char *error, size_t error_size)
{
    if (rows)
        *rows = 0;
    struct stat status;
    /* Refuse early: no point writing a large file that cannot be placed. */
    if (!replace && lstat(path, &status) == 0)
        return EXPORT_EXISTS;
    const char *name = strrchr(path, '/');
    if ((name ? name[1] : path[0]) == '\0')
        return export_fail(error, error_size, "", path[0] ? EISDIR : ENOENT);
    struct path_parts parts;
    if (!path_parts_split(path, &parts))
        return export_fail(error, error_size, "", ENOMEM);
    int fd = mkstemp(parts.temporary);
    if (fd < 0) {
        int saved = errno;
        path_parts_free(&parts);
        return export_fail(error, error_size, "cannot create a temporary file there", saved);
    }
    size_t written = 0;
    enum export_status result = temporary_write(fd, request, &written, error, error_size);
    if (result == EXPORT_OK)
        result = temporary_publish(parts.temporary, path, replace, error, error_size);
    if (result == EXPORT_OK) {
        directory_sync(parts.directory);
        if (rows)
            *rows = written;
    } else {
        unlink(parts.temporary);
    }
    path_parts_free(&parts);
    return result;
}
