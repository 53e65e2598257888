#define _GNU_SOURCE
#include "CEpoll.h"
#include <stdlib.h>
#include <sys/eventfd.h>
#include <pthread.h>
#include <unistd.h>

int cepoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t data) {
    struct epoll_event event;
    event.events = events;
    event.data.u64 = data;
    return epoll_ctl(epfd, op, fd, &event);
}

int cepoll_wait(int epfd, uint32_t *events, uint64_t *datas, int max, int timeout_ms) {
    struct epoll_event buffer[256];
    if (max > 256) max = 256;
    int count = epoll_wait(epfd, buffer, max, timeout_ms);
    for (int i = 0; i < count; i++) {
        events[i] = buffer[i].events;
        datas[i] = buffer[i].data.u64;
    }
    return count;
}

int cepoll_accept(int fd) {
    return accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

int cepoll_eventfd(void) {
    return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
}

int cepoll_eventfd_signal(int fd) {
    uint64_t one = 1;
    return (int)write(fd, &one, sizeof one);
}

int cepoll_eventfd_drain(int fd) {
    uint64_t value = 0;
    return (int)read(fd, &value, sizeof value);
}

#include <signal.h>
#include <unistd.h>
#include <fcntl.h>
#include <errno.h>
#include <string.h>

// One mechanism for every signal the programs turn into work on a thread: the handler writes the signal's
// number as one byte into its own pipe (write(2) is async-signal-safe; errno is preserved for the interrupted
// code), and a thread reads the pipe's blocking end.
static int stop_signal_write_end = -1;
static int reload_signal_write_end = -1;

static void write_signal(int write_end, int number) {
    int saved = errno;
    unsigned char byte = (unsigned char)number;
    if (write_end >= 0) { (void)write(write_end, &byte, 1); }
    errno = saved;
}

static void stop_signal_handler(int number) { write_signal(stop_signal_write_end, number); }
static void reload_signal_handler(int number) { write_signal(reload_signal_write_end, number); }

/// Makes the pipe, stores its writing end in `*write_end`, installs `handler` for `signals` (synchronously) and
/// returns the reading end, or -1.
static int signal_pipe(int *write_end, void (*handler)(int), const int *signals, int count) {
    int ends[2];
    if (pipe2(ends, O_CLOEXEC | O_NONBLOCK) != 0) return -1;
    // The reading end blocks (a thread waits on it); the writing end never blocks the handler.
    int flags = fcntl(ends[0], F_GETFL);
    fcntl(ends[0], F_SETFL, flags & ~O_NONBLOCK);
    *write_end = ends[1];
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = handler;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    for (int index = 0; index < count; index++) {
        if (sigaction(signals[index], &action, NULL) != 0) return -1;
    }
    return ends[0];
}

int cepoll_stop_signal_pipe(void) {
    static const int signals[] = {SIGINT, SIGTERM};
    return signal_pipe(&stop_signal_write_end, stop_signal_handler, signals, 2);
}

int cepoll_reload_signal_pipe(void) {
    static const int signals[] = {SIGHUP};
    return signal_pipe(&reload_signal_write_end, reload_signal_handler, signals, 1);
}

int cepoll_name_this_thread(const char *name) {
    return pthread_setname_np(pthread_self(), name);
}

int cepoll_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest) {
    return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
}
