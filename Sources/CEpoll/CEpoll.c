#define _GNU_SOURCE
#include "CEpoll.h"
#include <stdlib.h>
#include <sys/eventfd.h>
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
