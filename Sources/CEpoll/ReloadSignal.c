#define _GNU_SOURCE
#include "CEpoll.h"
#include <signal.h>
#include <unistd.h>
#include <fcntl.h>
#include <errno.h>
#include <string.h>

static int reload_signal_write_end = -1;

static void reload_signal_handler(int number) {
    int saved = errno;  // write(2) is async-signal-safe; errno is preserved for the interrupted code
    unsigned char byte = (unsigned char)number;
    if (reload_signal_write_end >= 0) { (void)write(reload_signal_write_end, &byte, 1); }
    errno = saved;
}

int cepoll_reload_signal_pipe(void) {
    int ends[2];
    if (pipe2(ends, O_CLOEXEC | O_NONBLOCK) != 0) return -1;
    int flags = fcntl(ends[0], F_GETFL);
    fcntl(ends[0], F_SETFL, flags & ~O_NONBLOCK);
    reload_signal_write_end = ends[1];
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = reload_signal_handler;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    if (sigaction(SIGHUP, &action, NULL) != 0) return -1;
    return ends[0];
}
