/* path: the few things memtop asks of a path's text, in one place: joining
 * a directory and a name, a path's last component, and whether a run
 * directory sits where TensorBoard puts runs (LOGDIR/plugins/profile/RUN).
 * Called by the log-directory files, the host list and model/source.c.
 * Text only, but for path_in_profile_plugin (which resolves the path):
 * nothing here opens or reads a file. */
#ifndef MEMTOP_PATH_H
#define MEMTOP_PATH_H

#include <stdbool.h>

/* "directory/name" (trailing slashes of directory dropped), malloc'd;
 * NULL when memory runs out. */
char *path_join(const char *directory, const char *name);
/* The last component of a path ("b" for "a/b" and "a/b/"'s "b/"). */
const char *path_base_name(const char *path);
/* Whether the directory at path sits in a plugins/profile directory, where
 * its name is a run's (a plain directory of profiles has none). */
bool path_in_profile_plugin(const char *path);

#endif
