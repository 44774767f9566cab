/* logdir_internal: helpers the log-directory files share (logdir.c reads
 * one run directory, logdir_scan.c finds the runs below a log directory).
 * Not for other modules: they read model/logdir.h. */
#ifndef MEMTOP_LOGDIR_INTERNAL_H
#define MEMTOP_LOGDIR_INTERNAL_H

/* "directory/name", malloc'd; NULL when memory runs out. */
char *logdir_path_join(const char *directory, const char *name);
/* The last component of a path ("b" for "a/b" and "a/b/"'s "b/"). */
const char *logdir_base_name(const char *path);

#endif
