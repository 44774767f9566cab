/* pickle_writer: writes pickles the way CPython's pickler (protocol 4 or
 * 5) does for plain data, for the snapshot generator and the tests: PROTO,
 * then FRAME opcodes about every 64 KiB (a frame is closed before the
 * object that takes it past the target, as _Framer does), MEMOIZE after
 * every str and container, BINGET/LONG_BINGET for an object written again,
 * SETITEMS/APPENDS in batches of 1000 (SETITEM/APPEND for a batch of one),
 * TUPLE2 for pairs, the smallest integer opcode that holds a value.
 * Also protocol 2 as TorchScript's pickler writes it (BINPUT/LONG_BINPUT,
 * BINUNICODE only, no FRAME).
 * Independent of memtop's reader: it shares no code with model/. */
#ifndef MEMTOP_TESTS_PICKLE_WRITER_H
#define MEMTOP_TESTS_PICKLE_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct pickle_writer;

/* Writes to `out` (protocol 2, 4 or 5). */
struct pickle_writer *pickle_writer_new(FILE *out, int protocol);
/* Writes STOP, flushes the last frame; false when a write failed. The
 * writer is freed either way. */
bool pickle_writer_finish(struct pickle_writer *writer);

/* A container of `count` items (pairs for a dict), the items to follow;
 * returns its memo id, for pickle_write_get. */
uint32_t pickle_write_dict(struct pickle_writer *writer, size_t count);
uint32_t pickle_write_list(struct pickle_writer *writer, size_t count);
/* Call after each item (each value of a dict) of the innermost open
 * container: closes batches and, after the last, the container. */
void pickle_write_item_done(struct pickle_writer *writer);

/* A fresh str (memoized, as CPython does for every str). */
uint32_t pickle_write_str(struct pickle_writer *writer, const char *text);
/* A str written once and fetched from the memo after (pybind's one
 * py::str per key). */
void pickle_write_key(struct pickle_writer *writer, const char *text);
void pickle_write_get(struct pickle_writer *writer, uint32_t memo_id);
void pickle_write_int(struct pickle_writer *writer, int64_t value);
void pickle_write_uint(struct pickle_writer *writer, uint64_t value); /* LONG1 up to 9 bytes */
void pickle_write_float(struct pickle_writer *writer, double value);
void pickle_write_bool(struct pickle_writer *writer, bool value);
void pickle_write_none(struct pickle_writer *writer);
/* (a, b), memoized. */
void pickle_write_pair(struct pickle_writer *writer, int64_t a, int64_t b);
/* One member of the innermost open dict: `key` (as pickle_write_key)
 * and an int, the item done. */
void pickle_write_int_member(struct pickle_writer *writer, const char *key, int64_t value);

/* Bytes written so far. */
uint64_t pickle_writer_bytes(const struct pickle_writer *writer);

#endif
