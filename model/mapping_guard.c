#include "config.h"

#include "model/mapping_guard.h"

#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static struct {
    uintptr_t base;
    size_t size;
    uintptr_t page_size;
    struct sigaction previous;
    volatile sig_atomic_t vanished;
} guard;

/* Only mmap and sigaction here: both are system calls, safe in a handler. */
static void mapping_guard_on_sigbus(int signal_number, siginfo_t *info, void *context)
{
    (void)signal_number;
    (void)context;
    uintptr_t address = (uintptr_t)info->si_addr;
    if (guard.size && address >= guard.base && address < guard.base + guard.size) {
        uintptr_t page = address & ~(guard.page_size - 1);
        size_t rest = guard.base + guard.size - page;
        void *zeros = mmap((void *)page, rest, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
                           -1, 0);
        if (zeros != MAP_FAILED) {
            guard.vanished = 1;
            return; /* the read is retried, and now finds zeros */
        }
    }
    /* Not ours, or no memory for the zeros: the fault repeats on return
     * and goes to whoever handled SIGBUS before (by default, death). */
    sigaction(SIGBUS, &guard.previous, NULL);
}

void mapping_guard_begin(const uint8_t *base, size_t size)
{
    guard.base = (uintptr_t)base;
    guard.size = size;
    guard.page_size = (uintptr_t)sysconf(_SC_PAGESIZE);
    guard.vanished = 0;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = mapping_guard_on_sigbus;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    sigaction(SIGBUS, &action, &guard.previous);
}

bool mapping_guard_end(void)
{
    sigaction(SIGBUS, &guard.previous, NULL);
    guard.size = 0;
    return guard.vanished != 0;
}
