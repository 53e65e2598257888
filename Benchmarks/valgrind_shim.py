"""The one LD_PRELOAD shim that lets valgrind run a Swift daemon here (used by Benchmarks/push-profile).

Valgrind 3.19 (Debian 12) writes into the mask given to rt_sigsuspend, and libdispatch's signal thread passes
one in read-only memory: valgrind dies at once. Preloaded under valgrind only, this copies the mask first.
"""
import os
import subprocess

SHIM = r"""
#define _GNU_SOURCE
#include <signal.h>
#include <unistd.h>
#include <sys/syscall.h>
int sigsuspend(const sigset_t *mask) {
    sigset_t copy = *mask;
    return (int)syscall(SYS_rt_sigsuspend, &copy, _NSIG / 8);
}
"""


def build_shim(directory):
    """Compiles the shim into DIRECTORY and returns the shared library's path, for LD_PRELOAD."""
    source = os.path.join(directory, "sigsuspend-shim.c")
    library = os.path.join(directory, "sigsuspend-shim.so")
    with open(source, "w") as f:
        f.write(SHIM)
    subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-o", library, source], check=True)
    return library
