/* user_frame: tells the user's frames from library frames (the rule is
 * written out in model/user_frame.h) and formats the one a row shows.
 * Called by the loaders that record stacks. Must not allocate: the
 * loaders call it once per allocation, on the pass over the file. */
#include "config.h"

#include "model/user_frame.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    FRAME_MODULE = 1,  /* `name.py` at the top of a relative path */
    FRAME_PACKAGE = 2, /* `name/...` */
};

struct library_name {
    const char *name;
    int forms;
};

/* The Python standard library's top modules and packages (those with a
 * source file; 3.8 to 3.13), and well-known libraries a training job
 * imports, in byte order (bsearch). A name that is both (a library
 * installed as one file or as a folder) carries both forms. */
static const struct library_name library_names[] = {
    {"IPython", FRAME_PACKAGE | FRAME_MODULE},
    {"PIL", FRAME_PACKAGE | FRAME_MODULE},
    {"__future__", FRAME_MODULE},
    {"_aix_support", FRAME_MODULE},
    {"_bootsubprocess", FRAME_MODULE},
    {"_collections_abc", FRAME_MODULE},
    {"_compat_pickle", FRAME_MODULE},
    {"_compression", FRAME_MODULE},
    {"_distutils_hack", FRAME_PACKAGE | FRAME_MODULE},
    {"_markupbase", FRAME_MODULE},
    {"_osx_support", FRAME_MODULE},
    {"_py_abc", FRAME_MODULE},
    {"_pydecimal", FRAME_MODULE},
    {"_pyio", FRAME_MODULE},
    {"_pyrepl", FRAME_PACKAGE},
    {"_sitebuiltins", FRAME_MODULE},
    {"_strptime", FRAME_MODULE},
    {"_threading_local", FRAME_MODULE},
    {"_weakrefset", FRAME_MODULE},
    {"abc", FRAME_MODULE},
    {"absl", FRAME_PACKAGE | FRAME_MODULE},
    {"accelerate", FRAME_PACKAGE | FRAME_MODULE},
    {"aifc", FRAME_MODULE},
    {"antigravity", FRAME_MODULE},
    {"apex", FRAME_PACKAGE | FRAME_MODULE},
    {"argparse", FRAME_MODULE},
    {"ast", FRAME_MODULE},
    {"asynchat", FRAME_MODULE},
    {"asyncio", FRAME_PACKAGE},
    {"asyncore", FRAME_MODULE},
    {"base64", FRAME_MODULE},
    {"bdb", FRAME_MODULE},
    {"bisect", FRAME_MODULE},
    {"bitsandbytes", FRAME_PACKAGE | FRAME_MODULE},
    {"bz2", FRAME_MODULE},
    {"cProfile", FRAME_MODULE},
    {"calendar", FRAME_MODULE},
    {"cgi", FRAME_MODULE},
    {"cgitb", FRAME_MODULE},
    {"chex", FRAME_PACKAGE | FRAME_MODULE},
    {"chunk", FRAME_MODULE},
    {"cmd", FRAME_MODULE},
    {"code", FRAME_MODULE},
    {"codecs", FRAME_MODULE},
    {"codeop", FRAME_MODULE},
    {"collections", FRAME_PACKAGE},
    {"colorsys", FRAME_MODULE},
    {"compileall", FRAME_MODULE},
    {"concurrent", FRAME_PACKAGE},
    {"configparser", FRAME_MODULE},
    {"contextlib", FRAME_MODULE},
    {"contextvars", FRAME_MODULE},
    {"copy", FRAME_MODULE},
    {"copyreg", FRAME_MODULE},
    {"crypt", FRAME_MODULE},
    {"csv", FRAME_MODULE},
    {"ctypes", FRAME_PACKAGE},
    {"curses", FRAME_PACKAGE},
    {"cv2", FRAME_PACKAGE | FRAME_MODULE},
    {"dataclasses", FRAME_MODULE},
    {"datasets", FRAME_PACKAGE | FRAME_MODULE},
    {"datetime", FRAME_MODULE},
    {"dbm", FRAME_PACKAGE},
    {"decimal", FRAME_MODULE},
    {"deepspeed", FRAME_PACKAGE | FRAME_MODULE},
    {"difflib", FRAME_MODULE},
    {"diffusers", FRAME_PACKAGE | FRAME_MODULE},
    {"dis", FRAME_MODULE},
    {"distutils", FRAME_PACKAGE},
    {"doctest", FRAME_MODULE},
    {"einops", FRAME_PACKAGE | FRAME_MODULE},
    {"email", FRAME_PACKAGE},
    {"encodings", FRAME_PACKAGE},
    {"ensurepip", FRAME_PACKAGE},
    {"enum", FRAME_MODULE},
    {"equinox", FRAME_PACKAGE | FRAME_MODULE},
    {"filecmp", FRAME_MODULE},
    {"fileinput", FRAME_MODULE},
    {"filelock", FRAME_PACKAGE | FRAME_MODULE},
    {"flash_attn", FRAME_PACKAGE | FRAME_MODULE},
    {"flax", FRAME_PACKAGE | FRAME_MODULE},
    {"fnmatch", FRAME_MODULE},
    {"fractions", FRAME_MODULE},
    {"fsspec", FRAME_PACKAGE | FRAME_MODULE},
    {"ftplib", FRAME_MODULE},
    {"functools", FRAME_MODULE},
    {"functorch", FRAME_PACKAGE | FRAME_MODULE},
    {"genericpath", FRAME_MODULE},
    {"getopt", FRAME_MODULE},
    {"getpass", FRAME_MODULE},
    {"gettext", FRAME_MODULE},
    {"glob", FRAME_MODULE},
    {"google", FRAME_PACKAGE | FRAME_MODULE},
    {"graphlib", FRAME_MODULE},
    {"gzip", FRAME_MODULE},
    {"h5py", FRAME_PACKAGE | FRAME_MODULE},
    {"haiku", FRAME_PACKAGE | FRAME_MODULE},
    {"hashlib", FRAME_MODULE},
    {"heapq", FRAME_MODULE},
    {"hmac", FRAME_MODULE},
    {"html", FRAME_PACKAGE},
    {"http", FRAME_PACKAGE},
    {"huggingface_hub", FRAME_PACKAGE | FRAME_MODULE},
    {"hydra", FRAME_PACKAGE | FRAME_MODULE},
    {"idlelib", FRAME_PACKAGE},
    {"imaplib", FRAME_MODULE},
    {"imghdr", FRAME_MODULE},
    {"imp", FRAME_MODULE},
    {"importlib", FRAME_PACKAGE},
    {"inspect", FRAME_MODULE},
    {"io", FRAME_MODULE},
    {"ipaddress", FRAME_MODULE},
    {"ipykernel", FRAME_PACKAGE | FRAME_MODULE},
    {"jax", FRAME_PACKAGE | FRAME_MODULE},
    {"jaxlib", FRAME_PACKAGE | FRAME_MODULE},
    {"jinja2", FRAME_PACKAGE | FRAME_MODULE},
    {"json", FRAME_PACKAGE},
    {"keras", FRAME_PACKAGE | FRAME_MODULE},
    {"keyword", FRAME_MODULE},
    {"lib2to3", FRAME_PACKAGE},
    {"lightning", FRAME_PACKAGE | FRAME_MODULE},
    {"lightning_fabric", FRAME_PACKAGE | FRAME_MODULE},
    {"linecache", FRAME_MODULE},
    {"locale", FRAME_MODULE},
    {"logging", FRAME_PACKAGE},
    {"lzma", FRAME_MODULE},
    {"mailbox", FRAME_MODULE},
    {"mailcap", FRAME_MODULE},
    {"mimetypes", FRAME_MODULE},
    {"modulefinder", FRAME_MODULE},
    {"mpmath", FRAME_PACKAGE | FRAME_MODULE},
    {"multiprocessing", FRAME_PACKAGE},
    {"netrc", FRAME_MODULE},
    {"networkx", FRAME_PACKAGE | FRAME_MODULE},
    {"nntplib", FRAME_MODULE},
    {"ntpath", FRAME_MODULE},
    {"nturl2path", FRAME_MODULE},
    {"numbers", FRAME_MODULE},
    {"numpy", FRAME_PACKAGE | FRAME_MODULE},
    {"omegaconf", FRAME_PACKAGE | FRAME_MODULE},
    {"opcode", FRAME_MODULE},
    {"operator", FRAME_MODULE},
    {"optax", FRAME_PACKAGE | FRAME_MODULE},
    {"optparse", FRAME_MODULE},
    {"orbax", FRAME_PACKAGE | FRAME_MODULE},
    {"os", FRAME_MODULE},
    {"packaging", FRAME_PACKAGE | FRAME_MODULE},
    {"pandas", FRAME_PACKAGE | FRAME_MODULE},
    {"pathlib", FRAME_PACKAGE | FRAME_MODULE},
    {"pdb", FRAME_MODULE},
    {"peft", FRAME_PACKAGE | FRAME_MODULE},
    {"pickle", FRAME_MODULE},
    {"pickletools", FRAME_MODULE},
    {"pipes", FRAME_MODULE},
    {"pkg_resources", FRAME_PACKAGE | FRAME_MODULE},
    {"pkgutil", FRAME_MODULE},
    {"platform", FRAME_MODULE},
    {"plistlib", FRAME_MODULE},
    {"poplib", FRAME_MODULE},
    {"posixpath", FRAME_MODULE},
    {"pprint", FRAME_MODULE},
    {"profile", FRAME_MODULE},
    {"pstats", FRAME_MODULE},
    {"pty", FRAME_MODULE},
    {"py_compile", FRAME_MODULE},
    {"pyclbr", FRAME_MODULE},
    {"pydoc", FRAME_MODULE},
    {"pydoc_data", FRAME_PACKAGE},
    {"pytorch_lightning", FRAME_PACKAGE | FRAME_MODULE},
    {"queue", FRAME_MODULE},
    {"quopri", FRAME_MODULE},
    {"random", FRAME_MODULE},
    {"re", FRAME_PACKAGE},
    {"reprlib", FRAME_MODULE},
    {"requests", FRAME_PACKAGE | FRAME_MODULE},
    {"rlcompleter", FRAME_MODULE},
    {"runpy", FRAME_MODULE},
    {"safetensors", FRAME_PACKAGE | FRAME_MODULE},
    {"sched", FRAME_MODULE},
    {"scipy", FRAME_PACKAGE | FRAME_MODULE},
    {"secrets", FRAME_MODULE},
    {"selectors", FRAME_MODULE},
    {"setuptools", FRAME_PACKAGE | FRAME_MODULE},
    {"shelve", FRAME_MODULE},
    {"shlex", FRAME_MODULE},
    {"shutil", FRAME_MODULE},
    {"signal", FRAME_MODULE},
    {"site", FRAME_MODULE},
    {"six", FRAME_PACKAGE | FRAME_MODULE},
    {"sklearn", FRAME_PACKAGE | FRAME_MODULE},
    {"smtpd", FRAME_MODULE},
    {"smtplib", FRAME_MODULE},
    {"sndhdr", FRAME_MODULE},
    {"socket", FRAME_MODULE},
    {"socketserver", FRAME_MODULE},
    {"sqlite3", FRAME_PACKAGE},
    {"sre_compile", FRAME_MODULE},
    {"sre_constants", FRAME_MODULE},
    {"sre_parse", FRAME_MODULE},
    {"ssl", FRAME_MODULE},
    {"stat", FRAME_MODULE},
    {"statistics", FRAME_MODULE},
    {"string", FRAME_MODULE},
    {"stringprep", FRAME_MODULE},
    {"struct", FRAME_MODULE},
    {"subprocess", FRAME_MODULE},
    {"sunau", FRAME_MODULE},
    {"sympy", FRAME_PACKAGE | FRAME_MODULE},
    {"symtable", FRAME_MODULE},
    {"sysconfig", FRAME_PACKAGE | FRAME_MODULE},
    {"tabnanny", FRAME_MODULE},
    {"tarfile", FRAME_MODULE},
    {"telnetlib", FRAME_MODULE},
    {"tempfile", FRAME_MODULE},
    {"tensorboard", FRAME_PACKAGE | FRAME_MODULE},
    {"tensorflow", FRAME_PACKAGE | FRAME_MODULE},
    {"test", FRAME_PACKAGE},
    {"textwrap", FRAME_MODULE},
    {"tf_keras", FRAME_PACKAGE | FRAME_MODULE},
    {"this", FRAME_MODULE},
    {"threading", FRAME_MODULE},
    {"timeit", FRAME_MODULE},
    {"timm", FRAME_PACKAGE | FRAME_MODULE},
    {"tkinter", FRAME_PACKAGE},
    {"token", FRAME_MODULE},
    {"tokenize", FRAME_MODULE},
    {"tokenizers", FRAME_PACKAGE | FRAME_MODULE},
    {"tomllib", FRAME_PACKAGE},
    {"torch", FRAME_PACKAGE | FRAME_MODULE},
    {"torchaudio", FRAME_PACKAGE | FRAME_MODULE},
    {"torchdata", FRAME_PACKAGE | FRAME_MODULE},
    {"torchmetrics", FRAME_PACKAGE | FRAME_MODULE},
    {"torchtext", FRAME_PACKAGE | FRAME_MODULE},
    {"torchvision", FRAME_PACKAGE | FRAME_MODULE},
    {"tornado", FRAME_PACKAGE | FRAME_MODULE},
    {"tqdm", FRAME_PACKAGE | FRAME_MODULE},
    {"trace", FRAME_MODULE},
    {"traceback", FRAME_MODULE},
    {"tracemalloc", FRAME_MODULE},
    {"traitlets", FRAME_PACKAGE | FRAME_MODULE},
    {"transformers", FRAME_PACKAGE | FRAME_MODULE},
    {"triton", FRAME_PACKAGE | FRAME_MODULE},
    {"trl", FRAME_PACKAGE | FRAME_MODULE},
    {"tty", FRAME_MODULE},
    {"turtle", FRAME_MODULE},
    {"turtledemo", FRAME_PACKAGE},
    {"types", FRAME_MODULE},
    {"typing", FRAME_MODULE},
    {"typing_extensions", FRAME_PACKAGE | FRAME_MODULE},
    {"unittest", FRAME_PACKAGE},
    {"urllib", FRAME_PACKAGE},
    {"urllib3", FRAME_PACKAGE | FRAME_MODULE},
    {"uu", FRAME_MODULE},
    {"uuid", FRAME_MODULE},
    {"venv", FRAME_PACKAGE},
    {"wandb", FRAME_PACKAGE | FRAME_MODULE},
    {"warnings", FRAME_MODULE},
    {"wave", FRAME_MODULE},
    {"weakref", FRAME_MODULE},
    {"webbrowser", FRAME_MODULE},
    {"wsgiref", FRAME_PACKAGE},
    {"xdrlib", FRAME_MODULE},
    {"xformers", FRAME_PACKAGE | FRAME_MODULE},
    {"xml", FRAME_PACKAGE},
    {"xmlrpc", FRAME_PACKAGE},
    {"yaml", FRAME_PACKAGE | FRAME_MODULE},
    {"zipapp", FRAME_MODULE},
    {"zipfile", FRAME_MODULE},
    {"zipimport", FRAME_MODULE},
    {"zmq", FRAME_PACKAGE | FRAME_MODULE},
    {"zoneinfo", FRAME_PACKAGE},
};

static int library_name_compare(const void *key, const void *element)
{
    const struct text *name = key;
    const struct library_name *entry = element;
    return text_compare(*name, text_of(entry->name));
}

/* Whether `name` is a listed library top name in form `form`. */
static bool is_library_name(struct text name, int form)
{
    const struct library_name *found =
        bsearch(&name, library_names, sizeof library_names / sizeof library_names[0],
                sizeof library_names[0], library_name_compare);
    return found != NULL && (found->forms & form) != 0;
}

static bool is_separator(char c)
{
    return c == '/' || c == '\\';
}

static bool has_prefix(struct text text, const char *prefix)
{
    size_t length = strlen(prefix);
    return text.length >= length && memcmp(text.bytes, prefix, length) == 0;
}

/* Whether a path component (between separators or the ends) equals one
 * of the folder names, or is `python<digit>...` right after `lib`/`lib64`. */
static bool has_library_folder(struct text file)
{
    size_t start = 0;
    struct text previous = {"", 0};
    for (size_t i = 0; i <= file.length; i++) {
        if (i < file.length && !is_separator(file.bytes[i]))
            continue;
        struct text part = text_make(file.bytes + start, i - start);
        if (text_equal(part, text_of("site-packages")) || text_equal(part, text_of("dist-packages")))
            return true;
        bool after_lib = text_equal(previous, text_of("lib")) ||
                         text_equal(previous, text_of("lib64")) ||
                         text_equal(previous, text_of("Lib"));
        if (after_lib && i < file.length && part.length > 6 && has_prefix(part, "python") &&
            part.bytes[6] >= '0' && part.bytes[6] <= '9')
            return true;
        previous = part;
        start = i + 1;
    }
    return false;
}

/* Whether the file's name ends in a native (C, C++, CUDA) suffix. */
static bool is_native_source(struct text file)
{
    static const char *const suffixes[] = {".c",   ".cc",  ".cpp", ".cxx", ".cu",  ".cuh", ".h",
                                           ".hh",  ".hpp", ".hxx", ".inl", ".ipp", ".so"};
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        size_t length = strlen(suffixes[i]);
        if (file.length > length &&
            memcmp(file.bytes + file.length - length, suffixes[i], length) == 0)
            return true;
    }
    return false;
}

static bool is_absolute(struct text file)
{
    if (file.length > 0 && is_separator(file.bytes[0]))
        return true;
    /* C:\... or C:/... */
    return file.length > 2 && file.bytes[1] == ':' && is_separator(file.bytes[2]);
}

/* A relative path's top name: a listed package (`torch/...`) or module
 * (`typing.py`). */
static bool has_library_top(struct text file)
{
    for (size_t i = 0; i < file.length; i++)
        if (is_separator(file.bytes[i]))
            return is_library_name(text_make(file.bytes, i), FRAME_PACKAGE);
    if (file.length > 3 && memcmp(file.bytes + file.length - 3, ".py", 3) == 0)
        return is_library_name(text_make(file.bytes, file.length - 3), FRAME_MODULE);
    return false;
}

bool user_frame_is_library(struct text file)
{
    if (file.length == 0 || text_equal(file, text_of("??")))
        return true;
    if (file.bytes[0] == '<')
        return has_prefix(file, "<built-in") || has_prefix(file, "<frozen") ||
               has_prefix(file, "<eval_with_key");
    if (is_native_source(file) || has_library_folder(file))
        return true;
    return !is_absolute(file) && has_library_top(file);
}

long user_frame_pick(const struct user_frame *frames, size_t count)
{
    if (count == 0)
        return -1;
    for (size_t i = 0; i < count; i++)
        if (!user_frame_is_library(frames[i].file))
            return (long)i;
    return 0;
}

bool user_frame_parse_kineto(struct text name, struct user_frame *out)
{
    /* `file(line): function`: the last "(digits): " in the name, so that
     * a file with parentheses in its path still parses. */
    for (size_t close = name.length < 3 ? 0 : name.length - 2; close-- > 0;) {
        if (memcmp(name.bytes + close, "): ", 3) != 0)
            continue;
        size_t open = close;
        while (open > 0 && close - open < 10 && name.bytes[open - 1] >= '0' &&
               name.bytes[open - 1] <= '9')
            open--;
        if (open == close || open < 2 || name.bytes[open - 1] != '(')
            continue;
        int64_t line = 0;
        for (size_t i = open; i < close; i++)
            line = line * 10 + (name.bytes[i] - '0');
        out->file = text_make(name.bytes, open - 1);
        out->line = line;
        out->function = text_make(name.bytes + close + 3, name.length - close - 3);
        return true;
    }
    return false;
}

/* Appends bytes to buffer within size (keeping room for the NUL); the
 * length counts them all. */
static void put_bytes(char *buffer, size_t size, size_t *length, const char *bytes, size_t count)
{
    if (*length + 1 < size) {
        size_t room = size - 1 - *length;
        memcpy(buffer + *length, bytes, count < room ? count : room);
    }
    *length += count;
}

size_t user_frame_format(const struct user_frame *frame, char *buffer, size_t size)
{
    size_t length = 0;
    put_bytes(buffer, size, &length, frame->file.bytes, frame->file.length);
    if (frame->file.length > 0 && frame->line > 0) {
        char number[24];
        int digits = snprintf(number, sizeof number, ":%lld", (long long)frame->line);
        put_bytes(buffer, size, &length, number, (size_t)digits);
    }
    if (frame->file.length > 0 && frame->function.length > 0)
        put_bytes(buffer, size, &length, " ", 1);
    put_bytes(buffer, size, &length, frame->function.bytes, frame->function.length);
    if (size > 0)
        buffer[length < size ? length : size - 1] = '\0';
    return length;
}
