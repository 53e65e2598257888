#define _GNU_SOURCE
#include "CEpoll.h"
#include <stdlib.h>

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
