#include "config.h"

#include "src/options.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

enum { OPTION_NO_COLOR = 256, OPTION_ASCII, OPTION_MOUSE };

static const struct option long_options[] = {
    {"summary", no_argument, NULL, 's'},
    {"json", no_argument, NULL, 'j'},
    {"ascii", no_argument, NULL, OPTION_ASCII},
    {"no-color", no_argument, NULL, OPTION_NO_COLOR},
    {"mouse", no_argument, NULL, OPTION_MOUSE},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

void options_print_help(FILE *out)
{
    fputs("Usage: memtop [OPTION]... PROFILE...\n"
          "View the memory profile of a TensorFlow, JAX or XProf job in the terminal:\n"
          "each allocator's memory over time, the peak, and what was live at the peak.\n"
          "\n"
          "PROFILE is a MemoryProfile as binary protobuf or JSON, gzipped or not\n"
          "(the form is found from the content). Several files, or a directory of\n"
          "them (one profile per host), open as hosts.\n"
          "\n"
          "  -s, --summary     print each allocator's summary and exit\n"
          "  -j, --json        with --summary: print it as JSON\n"
          "      --ascii       draw with ASCII only, even in a UTF-8 terminal\n"
          "      --no-color    no colours (also when NO_COLOR is set)\n"
          "      --mouse       let the mouse select and scroll (off by default so\n"
          "                    the terminal's own text selection keeps working)\n"
          "  -h, --help        show this help and exit\n"
          "  -V, --version     show the version and exit\n"
          "\n"
          "Exit status: 0 ok, 1 runtime failure, 2 bad usage or bad input.\n"
          "In the viewer, press ? for the keys.\n",
          out);
}

bool options_parse(int argc, char **argv, struct options *options, char *error,
                   size_t error_size)
{
    memset(options, 0, sizeof *options);
    const char *no_color = getenv("NO_COLOR");
    options->no_color = no_color && no_color[0];
    opterr = 0;
    optind = 1;
    int option;
    while ((option = getopt_long(argc, argv, ":sjhV", long_options, NULL)) != -1) {
        switch (option) {
        case 's': options->mode = RUN_SUMMARY; break;
        case 'j': options->json = true; break;
        case OPTION_ASCII: options->ascii = true; break;
        case OPTION_NO_COLOR: options->no_color = true; break;
        case OPTION_MOUSE: options->mouse = true; break;
        case 'h': options->mode = RUN_HELP; return true;
        case 'V': options->mode = RUN_VERSION; return true;
        case ':':
            snprintf(error, error_size, "option '%s' needs an argument", argv[optind - 1]);
            return false;
        default:
            if (optopt)
                snprintf(error, error_size, "unknown option '-%c'", optopt);
            else
                snprintf(error, error_size, "unknown option '%s'", argv[optind - 1]);
            return false;
        }
    }
    if (options->json && options->mode != RUN_SUMMARY) {
        snprintf(error, error_size, "--json goes with --summary");
        return false;
    }
    options->paths = argv + optind;
    options->path_count = (size_t)(argc - optind);
    if (options->path_count == 0) {
        snprintf(error, error_size, "no profile given");
        return false;
    }
    return true;
}
