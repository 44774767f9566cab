#include "config.h"

#include "ui/settings.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/atomic_file.h"

bool settings_path(char *path, size_t size)
{
    const char *state = getenv("XDG_STATE_HOME");
    int written;
    if (state && state[0] == '/') {
        written = snprintf(path, size, "%s/memtop/settings", state);
    } else {
        const char *home = getenv("HOME");
        if (!home || home[0] != '/')
            return false;
        written = snprintf(path, size, "%s/.local/state/memtop/settings", home);
    }
    return written > 0 && (size_t)written < size;
}

static bool key_is_valid(const char *key)
{
    size_t length = strlen(key);
    if (length == 0 || length >= SETTINGS_KEY_SIZE)
        return false;
    for (size_t i = 0; i < length; i++) {
        char c = key[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
              c == '-'))
            return false;
    }
    return true;
}

static bool value_is_valid(const char *value)
{
    size_t length = strlen(value);
    if (length >= SETTINGS_VALUE_SIZE)
        return false;
    for (size_t i = 0; i < length; i++)
        if (value[i] < 0x20 || value[i] > 0x7e)
            return false;
    return true;
}

const char *settings_get(const struct settings *settings, const char *key)
{
    for (size_t i = 0; i < settings->count; i++)
        if (strcmp(settings->entries[i].key, key) == 0)
            return settings->entries[i].value;
    return NULL;
}

bool settings_get_bool(const struct settings *settings, const char *key, bool otherwise)
{
    const char *value = settings_get(settings, key);
    if (value && strcmp(value, "yes") == 0)
        return true;
    if (value && strcmp(value, "no") == 0)
        return false;
    return otherwise;
}

bool settings_set(struct settings *settings, const char *key, const char *value)
{
    if (!key_is_valid(key) || !value_is_valid(value))
        return false;
    size_t i = 0;
    while (i < settings->count && strcmp(settings->entries[i].key, key) != 0)
        i++;
    if (i == settings->count) {
        if (settings->count == SETTINGS_MAX)
            return false;
        settings->count++;
        snprintf(settings->entries[i].key, sizeof settings->entries[i].key, "%s", key);
    }
    snprintf(settings->entries[i].value, sizeof settings->entries[i].value, "%s", value);
    return true;
}

bool settings_set_bool(struct settings *settings, const char *key, bool value)
{
    return settings_set(settings, key, value ? "yes" : "no");
}

/* One line of the file, its end of line removed: "key=value" sets, a
 * comment, a blank or anything else is passed over. */
static void settings_read_line(struct settings *settings, char *line)
{
    if (line[0] == '#')
        return;
    char *equals = strchr(line, '=');
    if (!equals)
        return;
    *equals = '\0';
    settings_set(settings, line, equals + 1);
}

enum settings_source settings_load(struct settings *settings, const char *path)
{
    memset(settings, 0, sizeof *settings);
    /* O_NONBLOCK: opening a FIFO must not wait for a writer; what is
     * opened is then checked, not the path (which could change between). */
    int descriptor = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (descriptor < 0) {
        struct stat named;
        return errno == ENXIO || (stat(path, &named) == 0 && !S_ISREG(named.st_mode))
                   ? SETTINGS_NOT_REGULAR
                   : SETTINGS_READ;
    }
    struct stat opened;
    if (fstat(descriptor, &opened) != 0 || !S_ISREG(opened.st_mode)) {
        close(descriptor);
        return SETTINGS_NOT_REGULAR;
    }
    FILE *file = fdopen(descriptor, "r");
    if (!file) {
        close(descriptor);
        return SETTINGS_READ;
    }
    /* Only the start of a file far larger than settings ever are. */
    static char text[SETTINGS_FILE_MAX + 1];
    size_t size = fread(text, 1, SETTINGS_FILE_MAX, file);
    bool complete = size < SETTINGS_FILE_MAX && !ferror(file);
    fclose(file);
    size_t start = 0;
    while (start < size) {
        char *end = memchr(text + start, '\n', size - start);
        size_t length = end ? (size_t)(end - (text + start)) : size - start;
        if (!end && !complete)
            break; /* cut off at the limit: not a whole line */
        /* An overlong line, or one holding a NUL, is no setting. */
        if (length < SETTINGS_LINE_MAX && !memchr(text + start, '\0', length)) {
            char line[SETTINGS_LINE_MAX];
            memcpy(line, text + start, length);
            line[length] = '\0';
            if (length > 0 && line[length - 1] == '\r')
                line[length - 1] = '\0';
            settings_read_line(settings, line);
        }
        start += length + 1;
    }
    return SETTINGS_READ;
}

static bool settings_write(FILE *out, void *context, char *error, size_t error_size)
{
    const struct settings *settings = context;
    fputs("# memtop's remembered settings, written when the viewer ends.\n"
          "# memtop --no-settings ignores them; removing this file forgets them.\n",
          out);
    for (size_t i = 0; i < settings->count; i++)
        fprintf(out, "%s=%s\n", settings->entries[i].key, settings->entries[i].value);
    if (ferror(out)) {
        snprintf(error, error_size, "%s", strerror(errno ? errno : EIO));
        return false;
    }
    return true;
}

/* mkdir -p for the directories above path's last component. */
static bool make_parents(const char *path, char *error, size_t error_size)
{
    char directory[4096];
    int written = snprintf(directory, sizeof directory, "%s", path);
    if (written < 0 || (size_t)written >= sizeof directory) {
        snprintf(error, error_size, "the path is too long");
        return false;
    }
    char *slash = strrchr(directory, '/');
    if (!slash || slash == directory)
        return true;
    *slash = '\0';
    for (char *at = directory + 1; *at; at++) {
        if (*at != '/')
            continue;
        *at = '\0';
        if (mkdir(directory, 0700) != 0 && errno != EEXIST) {
            snprintf(error, error_size, "%s: %s", directory, strerror(errno));
            return false;
        }
        *at = '/';
    }
    if (mkdir(directory, 0700) != 0 && errno != EEXIST) {
        snprintf(error, error_size, "%s: %s", directory, strerror(errno));
        return false;
    }
    return true;
}

bool settings_save(const struct settings *settings, const char *path, char *error,
                   size_t error_size)
{
    if (!make_parents(path, error, error_size))
        return false;
    /* atomic_file writes into a FIFO or a device; settings never do. */
    struct stat named;
    if (stat(path, &named) == 0 && !S_ISREG(named.st_mode)) {
        snprintf(error, error_size, "not a regular file");
        return false;
    }
    return atomic_file_write(path, true, settings_write, (void *)settings, error, error_size) ==
           ATOMIC_FILE_OK;
}
