#ifndef STORAGE_CEILING_H
#define STORAGE_CEILING_H

/// What one run of the raw-SQLite ceiling counted (storage_ceiling.c).
typedef struct {
    /// Mutations (new expenses) in the commits that ended inside the measured window.
    long long mutations;
    /// Those commits.
    long long commits;
    /// Nanoseconds the writing thread ran during the window (its schedstat).
    unsigned long long writer_cpu_ns;
    /// Why the run stopped early, empty when it did not.
    char error[256];
} storage_ceiling_result;

/// Writes, into a new SQLite file at `path`, the rows our SQLite store writes for pushes of new expenses:
/// groups of `group_mutations` mutations from `group_clients` clients per transaction, for `warmup_seconds`
/// plus `window_seconds`, counting the commits that end inside the window. Returns 0, or -1 with `error` set.
int storage_ceiling_run(const char *path, int group_mutations, int group_clients, double warmup_seconds,
                        double window_seconds, storage_ceiling_result *result);

#endif
