/* settings: what a person chose in the viewer that outlives the session
 * (the table's sort, the chart's toggles, a zoomed pane), as htop and tig
 * keep theirs: a small key=value file in $XDG_STATE_HOME/memtop/
 * (~/.local/state/memtop/ by default), read when the viewer starts and
 * written, atomically, when it ends.
 *
 * Owns: the file's place, its format and reading it tolerantly (a line
 * that is not key=value, a key or value with odd bytes, a file of
 * garbage: each ignored, never an error), and the key/value store the
 * panes fill. Called by the viewer (ui.c loads and saves; the panes'
 * recall/remember ops read and fill it). It knows no pane and no key of
 * theirs; it never prints (a file that cannot be written is a reason in
 * a buffer the caller may drop). No curses: the tests drive it alone. */
#ifndef MEMTOP_SETTINGS_H
#define MEMTOP_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>

#define SETTINGS_MAX 32
#define SETTINGS_KEY_SIZE 48
#define SETTINGS_VALUE_SIZE 64
/* Lines longer than this are not settings; a file is read this far. */
#define SETTINGS_LINE_MAX 256
#define SETTINGS_FILE_MAX 16384

struct settings {
    size_t count;
    struct {
        char key[SETTINGS_KEY_SIZE];     /* [a-z0-9._-] */
        char value[SETTINGS_VALUE_SIZE]; /* printable ASCII */
    } entries[SETTINGS_MAX];
};

/* $XDG_STATE_HOME/memtop/settings, or ~/.local/state/memtop/settings
 * when XDG_STATE_HOME is unset, empty or not absolute (as the XDG base
 * directory spec says); false when neither it nor HOME gives a place or
 * the path does not fit. */
bool settings_path(char *path, size_t size);

/* What settings_load found at the path. */
enum settings_source {
    SETTINGS_READ,        /* a regular file (or none, or an unreadable one) */
    SETTINGS_NOT_REGULAR, /* a FIFO, a device, a directory...: ignored */
};

/* Reads the file at path into settings (emptied first); a missing or
 * unreadable file, and any line that is not a setting, leave nothing.
 * Only a regular file is read: the path is opened without blocking and
 * what is not a regular file (a FIFO would block the viewer before it
 * draws) is left alone, SETTINGS_NOT_REGULAR, and should not be saved to. */
enum settings_source settings_load(struct settings *settings, const char *path);
/* Writes the settings to path atomically (report/atomic_file.h), making
 * its directory (0700) first; false with a reason when it could not, or
 * when something other than a regular file is at the path (never written
 * into). */
bool settings_save(const struct settings *settings, const char *path, char *error,
                   size_t error_size);

/* The value of key, NULL when unset. */
const char *settings_get(const struct settings *settings, const char *key);
/* A yes/no value; `otherwise` when unset or neither. */
bool settings_get_bool(const struct settings *settings, const char *key, bool otherwise);
/* Sets key to value (replacing it); false when the key or the value is
 * not one a file could hold, or the settings are full. */
bool settings_set(struct settings *settings, const char *key, const char *value);
bool settings_set_bool(struct settings *settings, const char *key, bool value);

#endif
