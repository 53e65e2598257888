#ifndef CEPOLL_H
#define CEPOLL_H
// Glibc's Swift module map exposes neither <sys/epoll.h> nor accept4; this header does.
#include <sys/epoll.h>
#include <sys/socket.h>
#include <stdint.h>
// Nor posix_spawn_file_actions_addclosefrom_np (glibc 2.34).
#include <spawn.h>
// Nor <malloc.h>: the loop returns the freed record buffers of quiet TLS sessions with malloc_trim.
#include <malloc.h>

/// epoll_event is packed on x86_64, so Swift cannot build one directly: these helpers do.
int cepoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t data);
/// Fills `events` and `datas` (each `max` long) from one epoll_wait call; returns its result.
int cepoll_wait(int epfd, uint32_t *events, uint64_t *datas, int max, int timeout_ms);
/// accept4 with SOCK_NONBLOCK | SOCK_CLOEXEC.
int cepoll_accept(int fd);
/// eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC): the loop's wake-up channel.
int cepoll_eventfd(void);
/// Adds 1 to an eventfd (wakes the loop); returns write's result.
int cepoll_eventfd_signal(int fd);
/// Reads (and so resets) an eventfd; returns read's result.
int cepoll_eventfd_drain(int fd);

/// Installs (with sigaction, synchronously) a handler for SIGINT and SIGTERM that writes the signal's number as
/// one byte into a pipe, and returns the pipe's reading end (or -1). A thread reading it turns a stop signal
/// into a graceful stop; from the moment this returns no stop signal can be lost or kill the process.
int cepoll_stop_signal_pipe(void);

/// The same for SIGHUP (the daemon reloads its TLS certificate and key): returns the reading end of a pipe that
/// receives one byte per SIGHUP, or -1. From the moment this returns, SIGHUP no longer terminates the process.
int cepoll_reload_signal_pipe(void);

/// Names the calling thread (`pthread_setname_np`, which Glibc's module map does not expose): what `top -H` and
/// `/proc/PID/task/*/comm` show. Linux keeps 15 bytes; returns 0 or an error number.
int cepoll_name_this_thread(const char *name);
/// Adds to `actions` the closing, in the child, of every descriptor from `lowest` up: a child then holds only what
/// its actions gave it, not a descriptor another thread of the parent opened without close-on-exec. Returns 0, or
/// an error number.
int cepoll_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest);

#endif
