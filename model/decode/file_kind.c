/* file_kind: see file_kind.h. Each kind is a magic number at offset 0;
 * a TensorBoard event file has none (a record length, a CRC), so it is
 * known by its first record's "brain.Event" or by its file name. */
#include "config.h"

#include "model/decode/file_kind.h"

#include <stdio.h>
#include <string.h>

struct foreign_kind {
    const char *magic;
    size_t magic_length;
    const char *words;
};

#define MAGIC(text) text, sizeof text - 1

static const struct foreign_kind foreign_kinds[] = {
    {MAGIC("PK\x03\x04"), "a ZIP archive (a PyTorch checkpoint? torch.save writes ZIP; "
                          "memtop reads torch.profiler traces)"},
    {MAGIC("\x93NUMPY"), "a NumPy array (.npy)"},
    {MAGIC("\x89HDF\r\n\x1a\n"), "an HDF5 file (Keras weights?)"},
    {MAGIC("\x7f" "ELF"), "an ELF binary (a program or a shared library)"},
    {MAGIC("\x89PNG\r\n\x1a\n"), "a PNG image"},
    {MAGIC("%PDF-"), "a PDF document"},
    {MAGIC("\x80\x02\x8a\x0a"), "a Python pickle (a PyTorch checkpoint of the old kind?)"},
};

static bool holds(const uint8_t *bytes, size_t size, const char *text)
{
    size_t length = strlen(text);
    for (size_t i = 0; i + length <= size; i++)
        if (memcmp(bytes + i, text, length) == 0)
            return true;
    return false;
}

/* TFRecord framing (u64 length, u32 CRC) around an Event whose first
 * record is the "brain.Event:2" file version; or the file's name. */
static bool is_event_file(const uint8_t *bytes, size_t size, const char *path)
{
    if (path && strstr(path, ".tfevents."))
        return true;
    size_t head = size < 64 ? size : 64;
    return size >= 16 && holds(bytes + 12, head - 12, "brain.Event:");
}

bool file_kind_foreign(const uint8_t *bytes, size_t size, const char *path, bool gzipped,
                       char *message, size_t message_size)
{
    const char *words = NULL;
    for (size_t i = 0; i < sizeof foreign_kinds / sizeof *foreign_kinds && !words; i++)
        if (size >= foreign_kinds[i].magic_length &&
            memcmp(bytes, foreign_kinds[i].magic, foreign_kinds[i].magic_length) == 0)
            words = foreign_kinds[i].words;
    if (!words && is_event_file(bytes, size, path))
        words = "a TensorBoard event file (its profile is a .xplane.pb under "
                "plugins/profile/: give memtop the log directory)";
    if (!words)
        return false;
    snprintf(message, message_size, "not a memory profile: %s%s", gzipped ? "gzip of " : "",
             words);
    return true;
}

void file_kind_describe_inflated(const uint8_t *bytes, size_t size, char *text, size_t text_size)
{
    size_t printable = 0, shown = size < 24 ? size : 24;
    for (size_t i = 0; i < shown; i++)
        printable += (bytes[i] >= 0x20 && bytes[i] < 0x7f) || bytes[i] == '\n' ||
                     bytes[i] == '\t' || bytes[i] == '\r';
    if (shown == 0 || printable < shown) {
        snprintf(text, text_size, "gzip of binary data");
        return;
    }
    char start[32];
    size_t length = 0;
    for (size_t i = 0; i < shown && length + 1 < sizeof start; i++)
        start[length++] = bytes[i] >= 0x20 && bytes[i] < 0x7f ? (char)bytes[i] : ' ';
    start[length] = '\0';
    snprintf(text, text_size, "gzip of text (\"%s%s\")", start, size > shown ? "..." : "");
}
